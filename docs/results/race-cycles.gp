set terminal svg size 1100,700
set termoption noenhanced
set output 'docs/results/race-cycles.svg'
set title "How long does one block reduction take on the GPU?\nuniformly random input order" noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'cycles per block reduction (clock64, median)'
set logscale y
set key outside below center horizontal maxcols 3 font ',9' height 1.5 noenhanced
set grid
set offsets graph 0.02, graph 0.02, graph 0.05, 0
plot \
  'docs/results/race-cycles.dat' index 0 using 1:2 with linespoints lw 2 lc rgb '#1f77b4' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 1 using 1:2 with linespoints lw 2 lc rgb '#d62728' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 2 using 1:2 with linespoints lw 2 lc rgb '#2ca02c' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 3 using 1:2 with linespoints lw 2 lc rgb '#9467bd' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 4 using 1:2 with linespoints lw 2 lc rgb '#ff7f0e' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 5 using 1:2 with linespoints lw 2 lc rgb '#8c564b' dt 1 pt 7 ps 1.2 title columnheader(1)
set terminal pngcairo size 1100,700
set termoption noenhanced
set output 'docs/results/race-cycles.png'
set title "How long does one block reduction take on the GPU?\nuniformly random input order" noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'cycles per block reduction (clock64, median)'
set logscale y
set key outside below center horizontal maxcols 3 font ',9' height 1.5 noenhanced
set grid
set offsets graph 0.02, graph 0.02, graph 0.05, 0
plot \
  'docs/results/race-cycles.dat' index 0 using 1:2 with linespoints lw 2 lc rgb '#1f77b4' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 1 using 1:2 with linespoints lw 2 lc rgb '#d62728' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 2 using 1:2 with linespoints lw 2 lc rgb '#2ca02c' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 3 using 1:2 with linespoints lw 2 lc rgb '#9467bd' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 4 using 1:2 with linespoints lw 2 lc rgb '#ff7f0e' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-cycles.dat' index 5 using 1:2 with linespoints lw 2 lc rgb '#8c564b' dt 1 pt 7 ps 1.2 title columnheader(1)
