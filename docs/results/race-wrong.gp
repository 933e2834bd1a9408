set terminal svg size 1100,700
set termoption noenhanced
set output 'docs/results/race-wrong.svg'
set title "How often is the racy loop wrong?\nuniformly random input order; sim_*: the simulator; the other variants were never wrong" noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'wrong results (% of trials)'
set yrange [0:*]
set key outside below center horizontal maxcols 3 font ',9' height 1.5 noenhanced
set grid
set offsets graph 0.02, graph 0.02, graph 0.05, 0
plot \
  'docs/results/race-wrong.dat' index 0 using 1:2 with linespoints lw 2 lc rgb '#1f77b4' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 1 using 1:2 with linespoints lw 2 lc rgb '#d62728' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 2 using 1:2 with linespoints lw 2 lc rgb '#2ca02c' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 3 using 1:2 with linespoints lw 2 lc rgb '#9467bd' dt 1 pt 6 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 4 using 1:2 with linespoints lw 2 lc rgb '#ff7f0e' dt 1 pt 6 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 5 using 1:2 with linespoints lw 2 lc rgb '#8c564b' dt 2 pt 8 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 6 using 1:2 with linespoints lw 2 lc rgb '#e377c2' dt 2 pt 8 ps 1.2 title columnheader(1)
set terminal pngcairo size 1100,700
set termoption noenhanced
set output 'docs/results/race-wrong.png'
set title "How often is the racy loop wrong?\nuniformly random input order; sim_*: the simulator; the other variants were never wrong" noenhanced
set logscale x 2
set xlabel 'threads per block'
set ylabel 'wrong results (% of trials)'
set yrange [0:*]
set key outside below center horizontal maxcols 3 font ',9' height 1.5 noenhanced
set grid
set offsets graph 0.02, graph 0.02, graph 0.05, 0
plot \
  'docs/results/race-wrong.dat' index 0 using 1:2 with linespoints lw 2 lc rgb '#1f77b4' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 1 using 1:2 with linespoints lw 2 lc rgb '#d62728' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 2 using 1:2 with linespoints lw 2 lc rgb '#2ca02c' dt 1 pt 7 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 3 using 1:2 with linespoints lw 2 lc rgb '#9467bd' dt 1 pt 6 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 4 using 1:2 with linespoints lw 2 lc rgb '#ff7f0e' dt 1 pt 6 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 5 using 1:2 with linespoints lw 2 lc rgb '#8c564b' dt 2 pt 8 ps 1.2 title columnheader(1), \
  'docs/results/race-wrong.dat' index 6 using 1:2 with linespoints lw 2 lc rgb '#e377c2' dt 2 pt 8 ps 1.2 title columnheader(1)
