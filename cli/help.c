/* help.c - the text of -h: the option table (option_table.h) by section, then the examples. */
#include "help.h"

#include <string.h>

#include "option_table.h"

/* -h's text starts in this column; a longer label is followed by two spaces. */
#define HELP_COLUMN 28

/* text's lines: the first where the caller has left off, each other one indented. */
static void print_lines(FILE *out, const char *text, int indent)
{
    for (const char *line = text; line;) {
        const char *end = strchr(line, '\n');
        const int n = end ? (int)(end - line) : (int)strlen(line);
        fprintf(out, "%*s%.*s\n", line == text ? 0 : indent, "", n, line);
        line = end ? end + 1 : NULL;
    }
}

/* One option's line: "  LABEL" padded to the column, its text; an option without a text of
 * its own (--offset) joins its label to the option before it. */
static void print_option(FILE *out, size_t i)
{
    const cli_option *opt = &cli_options[i];
    char label[96], more[64];
    if (opt->doc == CLI_DOC_ALIAS || !opt->help)
        return;
    cli_option_label(opt, label, sizeof label);
    for (size_t k = i + 1; k < cli_option_count && !cli_options[k].help &&
                           cli_options[k].doc != CLI_DOC_ALIAS;
         k++) {
        cli_option_label(&cli_options[k], more, sizeof more);
        strncat(label, ", ", sizeof label - strlen(label) - 1);
        strncat(label, more + strspn(more, " "), sizeof label - strlen(label) - 1);
    }
    const int width = (int)strlen(label);
    fprintf(out, "  %s%*s", label, width < HELP_COLUMN - 2 ? HELP_COLUMN - 2 - width : 2, "");
    print_lines(out, opt->help, HELP_COLUMN);
}

void cli_usage(FILE *out)
{
    fputs("Usage: tiledconv [options] [FILE...]\n"
          "Filters an image (BMP, PNG, JPEG, PGM/PPM) with a separable filter (3 to 63 taps, a\n"
          "length per axis) or a 2-D mask on an OpenCL device, from a source ROI into a target "
          "ROI\n"
          "(AMD's Tiled Convolution sample, extended).\n"
          "\n",
          out);
    for (int s = 0; s < CLI_SECTION_COUNT; s++) {
        fprintf(out, "%s:\n", cli_sections[s].help_title);
        for (size_t i = 0; i < cli_option_count; i++)
            if (cli_options[i].section == (cli_section)s)
                print_option(out, i);
        if (cli_sections[s].help_note) {
            fputs("  ", out);
            print_lines(out, cli_sections[s].help_note, 2);
        }
    }
    /* Two strings: one would pass the 4095 characters ISO C guarantees a literal. */
    fputs(
        "\n"
        "Examples:\n"
        "  tiledconv -e -t -i 10                           blur the default image, check, time\n"
        "  tiledconv -s in.bmp --filter gauss -f 9 -o blurred.bmp   9-tap Gaussian blur\n"
        "  tiledconv -s in.bmp --color --filter box -f 7 -o soft.bmp  blur a colour image\n"
        "  tiledconv -s photo.jpg --color -f 5 -o soft.png       JPEG in, PNG out\n"
        "  tiledconv -s scan16.png -f 5 -o smooth.png            16 bits in, 16 bits out\n"
        "  curl -s URL | tiledconv -s - -o - --format png -f 5 | pngquant - >small.png\n"
        "  tiledconv -O out/ --format png -f 5 photos/*.jpg   a folder in one process\n"
        "  find . -name '*.bmp' | tiledconv --files-from - -O out/ -d 0,1   on two GPUs\n"
        "  tiledconv -s in.bmp --filter sobel-x --offset 128 --scale 0.25 -o edges.bmp\n"
        "                                                  vertical edges, 128 = no change\n"
        "  tiledconv -s in.bmp --cx 1,2,1 --cy -1,0,1 -o dy.bmp  your own kx and ky\n"
        "  tiledconv -s in.bmp --filter gauss --sigma 8 -f 49x1 -o smear.bmp  rows only\n"
        "  tiledconv -s in.png --pyramid 3x5 -O levels/ -e     a scale space, every level checked\n"
        "  tiledconv -s in.bmp --mask '0,1,0;1,-4,1;0,1,0' --offset 128 -o lap.bmp  a 2-D mask\n"
        "  tiledconv -s in.bmp --gradient sobel --scale 0.25 -o edges.bmp -e\n"
        "                                                  edges from one read, checked\n",
        out);
    fputs(
        "  tiledconv -e -sL 3 -sT 3 -tL 2 -tT 2 -W 100 -H 80   filter one ROI into another\n"
        "  tiledconv -s in.bmp -f 5 --border reflect101 --raw out.f32 -o out.bmp\n"
        "                                                  OpenCV's default border, float copy\n"
        "  tiledconv -g 8192x8192 -a all -t -i 50 --no-output  compare the three algorithms\n"
        "  tiledconv -g 8192x8192 -f 9 -a all --storage image -t --no-output   buffers, images\n"
        "                                                  and the bilinear-tap trick\n"
        "  for f in 3 5 7 9 11 13 15; do tiledconv -g 4096x4096 -f $f -a all -i 20 --json \\\n"
        "      --no-output; done > sweep.jsonl             a timing sweep, one record a line\n"
        "\n"
        "Exit status: 0 success, 1 verification failed or OpenCL failure, 2 usage or input "
        "error;\n"
        "after SIGINT, SIGTERM or SIGHUP (temporary files removed) 128 + the signal.\n"
        "The manual (man tiledconv, docs/manual.md) describes every option in full.\n",
        out);
}
