set terminal svg size 1000,600
set output '/work/main/docs/results/race-wrong.svg'
set logscale x 2
set xlabel 'threads per block'
set ylabel 'wrong results (%)'
set key outside right top font ',8'
set grid
plot for [i=0:13] '/work/main/docs/results/race-wrong.dat' index i using 1:2 with linespoints title columnheader(1)
set terminal pngcairo size 1000,600
set output '/work/main/docs/results/race-wrong.png'
set logscale x 2
set xlabel 'threads per block'
set ylabel 'wrong results (%)'
set key outside right top font ',8'
set grid
plot for [i=0:13] '/work/main/docs/results/race-wrong.dat' index i using 1:2 with linespoints title columnheader(1)
