# gnuplot script from bench/plot.sh --cases-script, for: gnuplot THIS_FILE
# Data from bench/results/2026-11-22-h200/final-cases.csv, inline below; the PNGs are written next to this script.
dir = ''
if (exists("ARG0") && strlen(ARG0) > 0) {
    i = strlen(ARG0)
    while (i > 0 && ARG0[i:i] ne '/') { i = i - 1 }
    if (i > 0) { dir = ARG0[1:i] }
}
$len_new << EOD
3 90.87 "f3"
5 89.57 "f5"
7 86.77 "f7"
9 81.54 "f9"
11 75.63 "f11"
13 75.92 "f13"
15 55.87 "f15"
EOD
$len_old << EOD
3 89.13 "f3"
5 81.97 "f5"
7 71.91 "f7"
9 60.52 "f9"
11 54.94 "f11"
13 47.80 "f13"
15 42.24 "f15"
EOD
$len_extra << EOD
15 68.5
EOD
$al_new3 << EOD
1 93.88 "s0-t0"
2 94.66 "s0-t1"
3 95.05 "s0-t2"
4 94.59 "s0-t3"
5 94.16 "s1-t0"
6 94.17 "s1-t1"
7 94.03 "s1-t2"
8 94.51 "s1-t3"
9 93.55 "s2-t0"
10 93.29 "s2-t1"
11 94.41 "s2-t2"
12 94.25 "s2-t3"
13 93.84 "s3-t0"
14 93.44 "s3-t1"
15 92.93 "s3-t2"
16 93.92 "s3-t3"
EOD
$al_new5 << EOD
1 94.10 "s0-t0"
2 93.49 "s0-t1"
3 93.68 "s0-t2"
4 89.28 "s0-t3"
5 93.63 "s1-t0"
6 93.36 "s1-t1"
7 93.58 "s1-t2"
8 93.44 "s1-t3"
9 93.44 "s2-t0"
10 92.47 "s2-t1"
11 93.43 "s2-t2"
12 93.38 "s2-t3"
13 91.37 "s3-t0"
14 92.46 "s3-t1"
15 93.05 "s3-t2"
16 93.65 "s3-t3"
EOD
$al_old3 << EOD
1 91.02 "s0-t0"
2 46.11 "s0-t1"
3 46.31 "s0-t2"
4 46.65 "s0-t3"
5 87.95 "s1-t0"
6 48.56 "s1-t1"
7 48.33 "s1-t2"
8 48.09 "s1-t3"
9 87.95 "s2-t0"
10 48.99 "s2-t1"
11 48.01 "s2-t2"
12 49.08 "s2-t3"
13 87.77 "s3-t0"
14 48.30 "s3-t1"
15 48.46 "s3-t2"
16 49.00 "s3-t3"
EOD
$al_old5 << EOD
1 83.43 "s0-t0"
2 51.69 "s0-t1"
3 51.75 "s0-t2"
4 51.89 "s0-t3"
5 78.89 "s1-t0"
6 59.23 "s1-t1"
7 59.06 "s1-t2"
8 58.73 "s1-t3"
9 78.83 "s2-t0"
10 59.46 "s2-t1"
11 58.69 "s2-t2"
12 58.65 "s2-t3"
13 78.30 "s3-t0"
14 58.07 "s3-t1"
15 57.88 "s3-t2"
16 57.46 "s3-t3"
EOD
$bo_new3 << EOD
1 90.97 "replicate"
2 89.98 "constant"
3 91.15 "reflect101"
4 90.78 "reflect"
5 90.60 "wrap"
EOD
$bo_new5 << EOD
1 89.73 "replicate"
2 89.33 "constant"
3 89.46 "reflect101"
4 89.47 "reflect"
5 88.79 "wrap"
EOD
$bo_old3 << EOD
1 89.10 "replicate"
2 88.22 "constant"
3 84.87 "reflect101"
4 84.71 "reflect"
5 87.00 "wrap"
EOD
$bo_old5 << EOD
1 81.66 "replicate"
2 82.00 "constant"
3 79.97 "reflect101"
4 79.93 "reflect"
5 80.06 "wrap"
EOD
set terminal pngcairo size 1100,650 noenhanced font ",11"
set grid ytics
set key outside right top
set ylabel "% of the device copy (median kernel time)"
set yrange [0:105]

set output dir . 'length.png'
set title "tiled kernel against the filter length, whole image, replicate: NVIDIA H200\n2026-11-22T03:31:41Z"
set xlabel "filter length (taps)"
set xrange [2:16]
set xtics 3,2,15
plot $len_new using 1:2 with linespoints lw 2 pt 7 lc 1 title "this kernel", \
     $len_old using 1:2 with linespoints lw 2 pt 5 dt 2 lc 2 title "old kernel", \
     $len_extra using 1:2 with points pt 9 ps 2 lc 7 title "15 taps, final default", \
     85 with lines dt 3 lc rgb "black" title "target 85 % (3..9 taps)", \
     75 with lines dt 4 lc rgb "gray40" title "target 75 % (15 taps)"

set output dir . 'alignment.png'
set title "tiled kernel against the ROIs' alignment (-sL 4+a -sT 7 -tL 8+b -tT 1): NVIDIA H200\n2026-11-22T03:31:41Z"
set xlabel "a = sL mod 4, b = tL mod 4"
set xrange [0.5:16.5]
set xtics rotate by -45
plot $al_new3 using 1:2:xtic(3) with linespoints lw 2 pt 7 lc 1 title "this kernel, 3 taps", \
     $al_new5 using 1:2 with linespoints lw 2 pt 5 lc 3 title "this kernel, 5 taps", \
     $al_old3 using 1:2 with linespoints lw 2 pt 7 dt 2 lc 2 title "old kernel, 3 taps", \
     $al_old5 using 1:2 with linespoints lw 2 pt 5 dt 2 lc 4 title "old kernel, 5 taps", \
     85 with lines dt 3 lc rgb "black" title "target 85 %"

set output dir . 'borders.png'
set title "tiled kernel against the border rule, whole image: NVIDIA H200\n2026-11-22T03:31:41Z"
set xlabel "border rule"
set xrange [0.5:5.5]
set xtics norotate
plot $bo_new3 using 1:2:xtic(3) with linespoints lw 2 pt 7 lc 1 title "this kernel, 3 taps", \
     $bo_new5 using 1:2 with linespoints lw 2 pt 5 lc 3 title "this kernel, 5 taps", \
     $bo_old3 using 1:2 with linespoints lw 2 pt 7 dt 2 lc 2 title "old kernel, 3 taps", \
     $bo_old5 using 1:2 with linespoints lw 2 pt 5 dt 2 lc 4 title "old kernel, 5 taps", \
     85 with lines dt 3 lc rgb "black" title "target 85 %"
