set terminal svg size 1000,600
set termoption noenhanced
set output 'docs/results/race-wrong.svg'
set title 'Wrong results: uniformly random input order' noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'wrong results (% of trials)'
set key outside right top font ',8' noenhanced
set grid
plot for [i=0:13] 'docs/results/race-wrong.dat' index i using 1:2 with linespoints title columnheader(1)
set terminal pngcairo size 1000,600
set termoption noenhanced
set output 'docs/results/race-wrong.png'
set title 'Wrong results: uniformly random input order' noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'wrong results (% of trials)'
set key outside right top font ',8' noenhanced
set grid
plot for [i=0:13] 'docs/results/race-wrong.dat' index i using 1:2 with linespoints title columnheader(1)
