set terminal svg size 1000,600
set termoption noenhanced
set output 'docs/results/race-passes.svg'
set title 'Passes of the racy loop: uniformly random input order' noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'passes per warp (first warp, mean)'
set key outside right top font ',8' noenhanced
set grid
plot for [i=0:10] 'docs/results/race-passes.dat' index i using 1:2 with linespoints title columnheader(1)
set terminal pngcairo size 1000,600
set termoption noenhanced
set output 'docs/results/race-passes.png'
set title 'Passes of the racy loop: uniformly random input order' noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'passes per warp (first warp, mean)'
set key outside right top font ',8' noenhanced
set grid
plot for [i=0:10] 'docs/results/race-passes.dat' index i using 1:2 with linespoints title columnheader(1)
