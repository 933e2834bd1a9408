set terminal svg size 1000,600
set output '/work/main/docs/results/race-cycles.svg'
set logscale x 2
set xlabel 'threads per block'
set ylabel 'cycles per block reduction (median)'
set logscale y
set key outside right top font ',8'
set grid
plot for [i=0:5] '/work/main/docs/results/race-cycles.dat' index i using 1:2 with linespoints title columnheader(1)
set terminal pngcairo size 1000,600
set output '/work/main/docs/results/race-cycles.png'
set logscale x 2
set xlabel 'threads per block'
set ylabel 'cycles per block reduction (median)'
set logscale y
set key outside right top font ',8'
set grid
plot for [i=0:5] '/work/main/docs/results/race-cycles.dat' index i using 1:2 with linespoints title columnheader(1)
