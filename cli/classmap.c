/*
 * classmap.c - --class-map: the article's four classes of work-groups, drawn over the image.
 *
 * The input, dimmed, is the ground. Each work-group's tile is drawn where it writes: tinted by
 * its read class (1 green: its neighbourhood lies inside the sROI and is read unchecked; 2
 * orange: some read would leave the sROI and is mapped by the border rule), outlined by its
 * write class (3 thin gray: inside the tROI, written unchecked; 4 red, two pixels: writes
 * checked). The sROI is outlined in cyan, the tROI in magenta, and a legend below the image
 * gives the counts, in a 5 x 7 font of its own (the tool has no font library, and needs only
 * capitals, digits and five signs).
 */
#include "classmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
    uint8_t r, g, b;
} rgb;

static const rgb GREEN = {0, 200, 0}, ORANGE = {255, 140, 0}, GRAY = {170, 170, 170},
                 RED = {255, 0, 0}, CYAN = {0, 255, 255}, MAGENTA = {255, 0, 255},
                 WHITE = {255, 255, 255}, BLACK = {0, 0, 0};

typedef struct {
    int width, height; /* the canvas: the image, then the legend below it */
    uint8_t *px;       /* R, G, B */
} canvas;

static void put(canvas *c, int x, int y, rgb v)
{
    if (x < 0 || y < 0 || x >= c->width || y >= c->height)
        return;
    uint8_t *p = c->px + 3 * ((size_t)y * (size_t)c->width + (size_t)x);
    p[0] = v.r;
    p[1] = v.g;
    p[2] = v.b;
}

/* A blend of the pixel towards v: alpha in 256ths. */
static void tint(canvas *c, int x, int y, rgb v, int alpha)
{
    if (x < 0 || y < 0 || x >= c->width || y >= c->height)
        return;
    uint8_t *p = c->px + 3 * ((size_t)y * (size_t)c->width + (size_t)x);
    p[0] = (uint8_t)((p[0] * (256 - alpha) + v.r * alpha) >> 8);
    p[1] = (uint8_t)((p[1] * (256 - alpha) + v.g * alpha) >> 8);
    p[2] = (uint8_t)((p[2] * (256 - alpha) + v.b * alpha) >> 8);
}

/* The outline of a rectangle, `thick` pixels inwards. */
static void outline(canvas *c, int x, int y, int w, int h, rgb v, int thick)
{
    for (int k = 0; k < thick; k++)
        for (int i = 0; i < w; i++) {
            put(c, x + i, y + k, v);
            put(c, x + i, y + h - 1 - k, v);
        }
    for (int k = 0; k < thick; k++)
        for (int j = 0; j < h; j++) {
            put(c, x + k, y + j, v);
            put(c, x + w - 1 - k, y + j, v);
        }
}

/* 5 x 7 glyphs, a row a string of five bits, for the legend's capitals, digits and signs. */
static const struct {
    char c;
    const char *rows[7];
} glyphs[] = {
    {'A', {"01110", "10001", "10001", "11111", "10001", "10001", "10001"}},
    {'C', {"01110", "10001", "10000", "10000", "10000", "10001", "01110"}},
    {'D', {"11110", "10001", "10001", "10001", "10001", "10001", "11110"}},
    {'E', {"11111", "10000", "10000", "11110", "10000", "10000", "11111"}},
    {'F', {"11111", "10000", "10000", "11110", "10000", "10000", "10000"}},
    {'G', {"01110", "10001", "10000", "10111", "10001", "10001", "01111"}},
    {'H', {"10001", "10001", "10001", "11111", "10001", "10001", "10001"}},
    {'I', {"01110", "00100", "00100", "00100", "00100", "00100", "01110"}},
    {'K', {"10001", "10010", "10100", "11000", "10100", "10010", "10001"}},
    {'L', {"10000", "10000", "10000", "10000", "10000", "10000", "11111"}},
    {'M', {"10001", "11011", "10101", "10101", "10001", "10001", "10001"}},
    {'N', {"10001", "10001", "11001", "10101", "10011", "10001", "10001"}},
    {'O', {"01110", "10001", "10001", "10001", "10001", "10001", "01110"}},
    {'P', {"11110", "10001", "10001", "11110", "10000", "10000", "10000"}},
    {'R', {"11110", "10001", "10001", "11110", "10100", "10010", "10001"}},
    {'S', {"01111", "10000", "10000", "01110", "00001", "00001", "11110"}},
    {'T', {"11111", "00100", "00100", "00100", "00100", "00100", "00100"}},
    {'U', {"10001", "10001", "10001", "10001", "10001", "10001", "01110"}},
    {'W', {"10001", "10001", "10001", "10101", "10101", "10101", "01010"}},
    {'X', {"10001", "10001", "01010", "00100", "01010", "10001", "10001"}},
    {'Y', {"10001", "10001", "01010", "00100", "00100", "00100", "00100"}},
    {'0', {"01110", "10001", "10011", "10101", "11001", "10001", "01110"}},
    {'1', {"00100", "01100", "00100", "00100", "00100", "00100", "01110"}},
    {'2', {"01110", "10001", "00001", "00010", "00100", "01000", "11111"}},
    {'3', {"11111", "00010", "00100", "00010", "00001", "10001", "01110"}},
    {'4', {"00010", "00110", "01010", "10010", "11111", "00010", "00010"}},
    {'5', {"11111", "10000", "11110", "00001", "00001", "10001", "01110"}},
    {'6', {"00110", "01000", "10000", "11110", "10001", "10001", "01110"}},
    {'7', {"11111", "00001", "00010", "00100", "01000", "01000", "01000"}},
    {'8', {"01110", "10001", "10001", "01110", "10001", "10001", "01110"}},
    {'9', {"01110", "10001", "10001", "01111", "00001", "00010", "01100"}},
    {':', {"00000", "01100", "01100", "00000", "01100", "01100", "00000"}},
    {'(', {"00010", "00100", "01000", "01000", "01000", "00100", "00010"}},
    {')', {"01000", "00100", "00010", "00010", "00010", "00100", "01000"}},
    {',', {"00000", "00000", "00000", "00000", "01100", "00100", "01000"}},
};

/* Text at (x, y), each font pixel a scale x scale square; letters it lacks are left blank. */
static void text(canvas *c, int x, int y, const char *s, rgb v, int scale)
{
    for (; *s; s++, x += 6 * scale)
        for (size_t g = 0; g < sizeof glyphs / sizeof glyphs[0]; g++) {
            if (glyphs[g].c != *s)
                continue;
            for (int r = 0; r < 7; r++)
                for (int col = 0; col < 5; col++)
                    if (glyphs[g].rows[r][col] == '1')
                        for (int dy = 0; dy < scale; dy++)
                            for (int dx = 0; dx < scale; dx++)
                                put(c, x + col * scale + dx, y + r * scale + dy, v);
        }
}

/* The legend: a swatch and a line for each class, the ROIs' colours. */
static void legend(canvas *c, int top, int scale, const long counts[4])
{
    static const char *const names[4] = {"CLASS 1 FREE ON READ: %ld", "CLASS 2 CHECKS READS: %ld",
                                         "CLASS 3 FREE ON WRITE: %ld",
                                         "CLASS 4 CHECKS WRITES: %ld"};
    const int line = 10 * scale, sw = 7 * scale;
    for (int i = 0; i < 4; i++) {
        char s[64];
        const int y = top + 4 * scale + i * line;
        for (int dy = 0; dy < sw; dy++)
            for (int dx = 0; dx < sw; dx++)
                put(c, 4 * scale + dx, y + dy, i == 0 ? GREEN : i == 1 ? ORANGE : BLACK);
        if (i >= 2)
            outline(c, 4 * scale, y, sw, sw, i == 2 ? GRAY : RED, i == 2 ? 1 : 2);
        snprintf(s, sizeof s, names[i], counts[i]);
        text(c, 4 * scale + sw + 4 * scale, y, s, WHITE, scale);
    }
    text(c, 4 * scale, top + 4 * scale + 4 * line, "SROI (CYAN), TROI (MAGENTA)", WHITE, scale);
}

int classmap_draw(const tc_params *p, const tc_plane *planes, int count, uint8_t **pixels,
                  int *width, int *height, char *err, size_t err_size)
{
    const int w = planes[0].width, h = planes[0].height;
    const int scale = w >= 400 ? 2 : 1, legend_h = 56 * scale;
    canvas c = {w > 170 * scale ? w : 170 * scale, h + legend_h, NULL};
    tc_tile *tiles = NULL;
    long counts[4] = {0, 0, 0, 0};
    int n = 0, rc = -1;
    if (tc_tiles(p, w, h, NULL, 0, &n, err, err_size) != TC_OK)
        return -1;
    tiles = malloc((size_t)(n ? n : 1) * sizeof *tiles);
    c.px = calloc((size_t)c.width * (size_t)c.height, 3);
    if (!tiles || !c.px) {
        snprintf(err, err_size, "--class-map: out of host memory for the picture");
        goto done;
    }
    if (tc_tiles(p, w, h, tiles, n, &n, err, err_size) != TC_OK)
        goto done;
    /* The ground: the picture's intensity (the mean of R, G and B for --color), dimmed. */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double v = 0.0;
            for (int k = 0; k < count; k++)
                v += planes[k].px[(size_t)y * (size_t)w + (size_t)x] / count;
            const uint8_t g = (uint8_t)(v < 0 ? 0 : v > 255 ? 127 : v / 2);
            put(&c, x, y, (rgb){g, g, g});
        }
    for (int i = 0; i < n; i++) {
        const tc_tile *t = &tiles[i];
        counts[t->read_class - 1]++;
        counts[t->write_class - 1]++;
        for (int y = t->y; y < t->y + t->height && y < h; y++)
            for (int x = t->x; x < t->x + t->width && x < w; x++)
                tint(&c, x, y, t->read_class == 1 ? GREEN : ORANGE, 100);
    }
    for (int i = 0; i < n; i++) /* outlines after every tint, so that none is tinted over */
        outline(&c, tiles[i].x, tiles[i].y, tiles[i].width, tiles[i].height,
                tiles[i].write_class == 3 ? GRAY : RED, tiles[i].write_class == 3 ? 1 : 2);
    /* The ROIs last, over the tiles, clipped to the image by put(). */
    const int rw = p->roi_width, rh = p->roi_height;
    outline(&c, p->src_left, p->src_top, rw, rh, CYAN, 1);
    outline(&c, p->dst_left, p->dst_top, rw, rh, MAGENTA, 1);
    for (int y = h; y < c.height; y++) /* the legend's ground */
        for (int x = 0; x < c.width; x++)
            put(&c, x, y, (rgb){32, 32, 32});
    legend(&c, h, scale, counts);
    *pixels = c.px;
    *width = c.width;
    *height = c.height;
    c.px = NULL;
    rc = 0;
done:
    free(tiles);
    free(c.px);
    return rc;
}
