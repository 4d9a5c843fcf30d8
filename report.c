/* report.c - printing the figures. Every derived figure says what it counts. */
#include "report.h"

#include <string.h>

void report_fill_timing(tc_result *r, const tc_run_stats *stats, double copy_ms)
{
    const int n = stats->iterations;
    const double pixels = (double)r->roi_width * (double)r->roi_height;
    /* With --color the kernel times are the three planes' runs summed (main.c), so the bytes
     * and the copy floor count three planes too. */
    const int planes = r->planes > 0 ? r->planes : 1;
    double min = stats->kernel_ms[0], sum = 0.0;
    for (int i = 0; i < n; i++) {
        if (stats->kernel_ms[i] < min)
            min = stats->kernel_ms[i];
        sum += stats->kernel_ms[i];
    }
    r->iterations = n;
    r->kernel_ms_min = min;
    r->kernel_ms_median = tc_median(stats->kernel_ms, n);
    r->kernel_ms_mean = sum / n;
    r->passes = stats->pass_ms[0] ? 2 : 1;
    for (int p = 0; p < 2 && stats->pass_ms[p]; p++) {
        double pmin = stats->pass_ms[p][0], psum = 0.0;
        for (int i = 0; i < n; i++) {
            if (stats->pass_ms[p][i] < pmin)
                pmin = stats->pass_ms[p][i];
            psum += stats->pass_ms[p][i];
        }
        r->pass_ms_min[p] = pmin;
        r->pass_ms_median[p] = tc_median(stats->pass_ms[p], n);
        r->pass_ms_mean[p] = psum / n;
    }
    r->build_ms = stats->build_ms;
    r->h2d_ms = stats->h2d_ms;
    r->d2h_ms = stats->d2h_ms;
    r->wall_ms_per_iteration = stats->wall_ms_per_iteration;
    r->copy_ms = copy_ms * planes;
    r->mpixels_per_s = pixels / (r->kernel_ms_median * 1e-3) / 1e6;
    r->gbytes_per_s = 8.0 * planes * pixels / (r->kernel_ms_median * 1e-3) / 1e9;
    r->copy_gbytes_per_s = 8.0 * planes * pixels / (r->copy_ms * 1e-3) / 1e9;
    r->copy_fraction = r->copy_ms / r->kernel_ms_median;
}

void report_timing(FILE *out, const tc_result *r)
{
    const int colour = r->planes > 1;
    fprintf(out, "timing, %s (ms; %d timed iteration%s after 1 warm-up, from profiling events):\n",
            r->algorithm, r->iterations, r->iterations == 1 ? "" : "s");
    if (colour)
        fprintf(out, "  (--color: each figure is the sum over the %d planes R, G and B, each "
                     "filtered by its own run)\n", r->planes);
    fprintf(out, "  kernel           min %10.4f   median %10.4f   mean %10.4f\n",
            r->kernel_ms_min, r->kernel_ms_median, r->kernel_ms_mean);
    for (int p = 0; r->passes == 2 && p < 2; p++)
        fprintf(out, "  pass %d, %-7s  min %10.4f   median %10.4f   mean %10.4f\n", p + 1,
                p == 0 ? "rows" : "columns", r->pass_ms_min[p], r->pass_ms_median[p],
                r->pass_ms_mean[p]);
    fprintf(out, "  copy floor                  median %10.4f   (%sclEnqueueCopyBuffer of the "
                 "ROI's %.2f MB%s)\n",
            r->copy_ms, colour ? "3 x " : "", 4.0 * r->roi_width * (double)r->roi_height / 1e6,
            colour ? " per plane" : "");
    fprintf(out, "  program build    %10.2f%s\n", r->build_ms,
            r->build_ms == 0.0 ? "   (already built in this process)" : "");
    fprintf(out, "  host to device   %10.4f   (input plane and coefficients)\n", r->h2d_ms);
    fprintf(out, "  device to host   %10.4f   (output plane)\n", r->d2h_ms);
    fprintf(out, "throughput, %s (median kernel time):\n", r->algorithm);
    fprintf(out, "  %10.2f MPixels/s of the target ROI\n", r->mpixels_per_s);
    fprintf(out, "  %10.2f GB/s effective, counting 8 bytes per pixel%s (one float read, one "
                 "written)\n", r->gbytes_per_s, colour ? " and plane" : "");
    fprintf(out, "  %10.1f %% of the device's copy bandwidth (%.2f GB/s for the same bytes)\n",
            100.0 * r->copy_fraction, r->copy_gbytes_per_s);
    /* One line in the form of NVIDIA's convolutionSeparable sample, for scripts that grep. */
    fprintf(out, "Throughput = %.4f MPixels/sec, Time = %.5f s, Size = %ld Pixels\n",
            r->mpixels_per_s, r->kernel_ms_median * 1e-3,
            (long)r->roi_width * (long)r->roi_height);
}

static const char *verdict(const tc_result *r)
{
    return r->verified < 0 ? "not checked" : r->verified ? "PASSED" : "FAILED";
}

void report_comparison(FILE *out, const tc_result *rows, int count)
{
    fprintf(out, "\n%d x %d image, %d x %d ROI, %d taps, %d iterations%s; times in ms from "
                 "profiling events; copy floor %.4f ms\n",
            rows[0].width, rows[0].height, rows[0].roi_width, rows[0].roi_height, rows[0].taps,
            rows[0].iterations,
            rows[0].planes > 1 ? ", R, G and B planes (times summed over the planes)" : "",
            rows[0].copy_ms);
    fprintf(out, "%-9s %10s %10s %11s %9s %8s %9s  %s\n", "algorithm", "median", "min",
            "MPixels/s", "GB/s", "% copy", "vs tiled", "verification");
    for (int i = 0; i < count; i++) {
        const tc_result *r = &rows[i];
        fprintf(out, "%-9s %10.4f %10.4f %11.1f %9.2f %7.1f%% %8.2fx  %s\n", r->algorithm,
                r->kernel_ms_median, r->kernel_ms_min, r->mpixels_per_s, r->gbytes_per_s,
                100.0 * r->copy_fraction, r->kernel_ms_median / rows[0].kernel_ms_median,
                verdict(r));
        for (int p = 0; r->passes == 2 && p < 2; p++)
            fprintf(out, "%-9s %10.4f %10.4f %11s %9s %8s %9s  %s\n", p ? "  pass 2" : "  pass 1",
                    r->pass_ms_median[p], r->pass_ms_min[p], "", "", "", "", "");
    }
    fprintf(out, "GB/s counts 8 bytes per target pixel and plane; %% copy is the copy floor's time over "
                 "the median; 'vs tiled' is the median over tiled's median.\n");
}

void report_csv_header(FILE *out)
{
    fputs("algorithm,taps,width,height,roi_width,roi_height,iterations,kernel_ms_min,"
          "kernel_ms_median,kernel_ms_mean,pass1_ms_median,pass2_ms_median,"
          "wall_ms_per_iteration,copy_ms,build_ms,h2d_ms,d2h_ms,mpixels_per_s,gbytes_per_s,copy_fraction,device,verified,"
          "planes\n",
          out);
}

/* The device name in CSV: quoted, with inner quotes doubled. */
static void csv_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void report_csv(FILE *out, const tc_result *r)
{
    fprintf(out, "%s,%d,%d,%d,%d,%d,%d,", r->algorithm, r->taps, r->width, r->height,
            r->roi_width, r->roi_height, r->iterations);
    /* Machine-readable records always carry the timing (main.c times every such run); the
     * pass columns are empty except for twopass. */
    fprintf(out, "%.6f,%.6f,%.6f,", r->kernel_ms_min, r->kernel_ms_median, r->kernel_ms_mean);
    if (r->passes == 2)
        fprintf(out, "%.6f,%.6f,", r->pass_ms_median[0], r->pass_ms_median[1]);
    else
        fputs(",,", out);
    fprintf(out, "%.6f,%.6f,%.3f,%.6f,%.6f,%.3f,%.3f,%.4f,", r->wall_ms_per_iteration,
            r->copy_ms, r->build_ms, r->h2d_ms, r->d2h_ms, r->mpixels_per_s, r->gbytes_per_s,
            r->copy_fraction);
    csv_string(out, r->device);
    fprintf(out, ",%s,%d\n", r->verified < 0 ? "" : r->verified ? "true" : "false",
            r->planes > 0 ? r->planes : 1);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void report_json(FILE *out, const tc_result *r)
{
    fputs("{\"algorithm\": ", out);
    json_string(out, r->algorithm);
    fprintf(out, ", \"taps\": %d, \"width\": %d, \"height\": %d, \"roi_width\": %d, "
                 "\"roi_height\": %d, \"iterations\": %d",
            r->taps, r->width, r->height, r->roi_width, r->roi_height, r->iterations);
    fprintf(out, ", \"kernel_ms_min\": %.6f, \"kernel_ms_median\": %.6f, "
                 "\"kernel_ms_mean\": %.6f",
            r->kernel_ms_min, r->kernel_ms_median, r->kernel_ms_mean);
    if (r->passes == 2)
        fprintf(out, ", \"pass1_ms_median\": %.6f, \"pass2_ms_median\": %.6f",
                r->pass_ms_median[0], r->pass_ms_median[1]);
    else
        fputs(", \"pass1_ms_median\": null, \"pass2_ms_median\": null", out);
    fprintf(out, ", \"wall_ms_per_iteration\": %.6f, \"copy_ms\": %.6f, \"build_ms\": %.3f, "
                 "\"h2d_ms\": %.6f, \"d2h_ms\": %.6f, \"mpixels_per_s\": %.3f, "
                 "\"gbytes_per_s\": %.3f, \"copy_fraction\": %.4f",
            r->wall_ms_per_iteration, r->copy_ms, r->build_ms, r->h2d_ms, r->d2h_ms,
            r->mpixels_per_s, r->gbytes_per_s, r->copy_fraction);
    fputs(", \"device\": ", out);
    json_string(out, r->device);
    fprintf(out, ", \"verified\": %s, \"planes\": %d}\n",
            r->verified < 0 ? "null" : r->verified ? "true" : "false",
            r->planes > 0 ? r->planes : 1);
}
