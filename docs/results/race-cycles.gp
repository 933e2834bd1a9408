set terminal svg size 1000,600
set termoption noenhanced
set output 'docs/results/race-cycles.svg'
set title 'Time of one block reduction: uniformly random input order' noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'cycles per block reduction (clock64, median)'
set logscale y
set key outside right top font ',8' noenhanced
set grid
plot for [i=0:5] 'docs/results/race-cycles.dat' index i using 1:2 with linespoints title columnheader(1)
set terminal pngcairo size 1000,600
set termoption noenhanced
set output 'docs/results/race-cycles.png'
set title 'Time of one block reduction: uniformly random input order' noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'cycles per block reduction (clock64, median)'
set logscale y
set key outside right top font ',8' noenhanced
set grid
plot for [i=0:5] 'docs/results/race-cycles.dat' index i using 1:2 with linespoints title columnheader(1)
