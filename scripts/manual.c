/*
 * manual.c - makes the manual, docs/manual.md and the man page tiledconv.1, from the option
 * table (src/files/option_table.c: every option's names, value and section, in order) and
 * cli/manual_source.md (the chapters, and each option's description by its long name), so
 * that neither can list an option the tool does not have or miss one it has. `make manual`
 * runs it; `make manual-check` (part of `make test`) fails when the committed files differ.
 *
 *   manual SOURCE.md VERSION OUT.md OUT.1
 *
 * The source is a small subset of Markdown, which the man page is made from as well:
 *   # TITLE            a chapter (NAME, SYNOPSIS, ..., SEE ALSO); OPTIONS holds the table
 *   ## option NAME     in OPTIONS: the description of the option whose long name is NAME
 *                      (FILE... for the operands); the options that share it (-sT with -sL)
 *                      and other names of it (--colour) are named by the table
 *   ## before SECTION, ## after SECTION   in OPTIONS: text before or after a section's
 *                      options (SECTION: the table's id, io, roi, ...)
 *   paragraphs         separated by blank lines; `code` (bold in the man page), *emphasis*
 *   - `LABEL`: text    a list of definitions (continued by lines indented two spaces); an
 *                      item that does not start with `code` or *emphasis* and ": " is a bullet
 *       code           lines indented four spaces: an example, set as it is
 *   <!-- ... -->       a comment, not copied
 * The only characters beyond ASCII are the multiplication sign and the right arrow.
 * Exit status: 0, or 1 with the reason on stderr (and nothing written).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "option_table.h"

#define MAX_LINES 4096
#define MAX_BLOCKS 256

/* A block of the source: a chapter, an option's description, a section's text. */
typedef enum { B_CHAPTER, B_OPTION, B_BEFORE, B_AFTER } block_kind;

typedef struct {
    block_kind kind;
    const char *name;   /* the chapter's title, the option's long name, the section's id */
    int first, end;     /* its body: lines [first, end) */
    int used;
} block;

static char *lines[MAX_LINES];
static int n_lines;
static block blocks[MAX_BLOCKS];
static int n_blocks;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "manual: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* The source, split into lines and blocks; comments dropped. */
static void read_source(const char *path)
{
    FILE *f = fopen(path, "rb");
    static char text[1 << 20];
    size_t n;
    if (!f)
        die("cannot read", path);
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    if (n == sizeof text - 1)
        die("source too long", path);
    text[n] = '\0';
    int in_comment = 0;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "<!--", 4) == 0)
            in_comment = 1;
        if (!in_comment) {
            if (n_lines == MAX_LINES)
                die("source too long", path);
            lines[n_lines++] = line;
        }
        if (in_comment && strstr(line, "-->"))
            in_comment = 0;
        line = next;
    }
    for (int i = 0; i < n_lines; i++) {
        block b = {B_CHAPTER, NULL, i + 1, n_lines, 0};
        if (strncmp(lines[i], "# ", 2) == 0)
            b.name = lines[i] + 2;
        else if (strncmp(lines[i], "## option ", 10) == 0)
            b = (block){B_OPTION, lines[i] + 10, i + 1, n_lines, 0};
        else if (strncmp(lines[i], "## before ", 10) == 0)
            b = (block){B_BEFORE, lines[i] + 10, i + 1, n_lines, 0};
        else if (strncmp(lines[i], "## after ", 9) == 0)
            b = (block){B_AFTER, lines[i] + 9, i + 1, n_lines, 0};
        else if (lines[i][0] == '#')
            die("a heading the manual does not know", lines[i]);
        else
            continue;
        if (n_blocks == MAX_BLOCKS)
            die("too many blocks", path);
        if (n_blocks)
            blocks[n_blocks - 1].end = i;
        blocks[n_blocks++] = b;
    }
    for (int i = 0; i < n_lines; i++)
        for (const unsigned char *c = (const unsigned char *)lines[i]; *c; c++)
            if (*c >= 0x80 && strncmp((const char *)c, "\xc3\x97", 2) != 0 &&
                strncmp((const char *)c, "\xe2\x86\x92", 3) != 0)
                die("a character beyond ASCII, the multiplication sign and the arrow", lines[i]);
            else if (*c >= 0x80)
                c += c[0] == 0xc3 ? 1 : 2;
}

static block *find(block_kind kind, const char *name)
{
    for (int i = 0; i < n_blocks; i++)
        if (blocks[i].kind == kind && strcmp(blocks[i].name, name) == 0) {
            blocks[i].used = 1;
            return &blocks[i];
        }
    return NULL;
}

/* The key of an option's description: its long name, or FILE... for the operands. */
static const char *key_of(const cli_option *opt)
{
    return opt->long_name ? opt->long_name : opt->value_name;
}

/* An option's label: `-s`, `--source` *FILE*, in the source's Markdown. */
static void label_text(const cli_option *opt, char *text, size_t size)
{
    if (!opt->long_name)
        snprintf(text, size, "*%s*", opt->value_name);
    else
        snprintf(text, size, "%s%s%s`--%s`%s%s%s", opt->short_name ? "`-" : "",
                 opt->short_name ? opt->short_name : "", opt->short_name ? "`, " : "",
                 opt->long_name, opt->value_name ? " *" : "",
                 opt->value_name ? opt->value_name : "", opt->value_name ? "*" : "");
}

/* ---- Markdown ------------------------------------------------------------------------- */

/* A block's body as it is in the source (Markdown nests by its headings: nested unused). */
static void md_body(FILE *out, const block *b, int nested)
{
    (void)nested;
    int start = b->first, end = b->end;
    while (start < end && !lines[start][0])
        start++;
    while (end > start && !lines[end - 1][0])
        end--;
    for (int i = start; i < end; i++)
        fprintf(out, "%s\n", lines[i]);
}

static void md_label(FILE *out, const char *label)
{
    fputs(label, out);
}

/* ---- The man page --------------------------------------------------------------------- */

/* One character of text: roff's escapes for what it would read otherwise; in code, dashes
 * and quotes as the ASCII ones (so that a command copied from the page runs). */
static const char *roff_char(const char *c, int code, int *len)
{
    *len = 1;
    switch (*c) {
    case '\\': return "\\e";
    case '-': return code ? "\\-" : "-";
    case '\'': return code ? "\\(aq" : "'";
    case '^': return "\\(ha";
    case '~': return "\\(ti";
    case '`': return "\\(ga";
    default: break;
    }
    if (strncmp(c, "\xc3\x97", 2) == 0) {
        *len = 2;
        return "\\(mu";
    }
    if (strncmp(c, "\xe2\x86\x92", 3) == 0) {
        *len = 3;
        return "\\(->";
    }
    return NULL;
}

/* A '*' that opens emphasis: followed by a non-space, with a closing '*' (preceded by a
 * non-space) later on the line. Returns the closing one, or NULL. */
static const char *emphasis_end(const char *c)
{
    if (c[1] == ' ' || c[1] == '\0' || c[1] == '*')
        return NULL;
    for (const char *e = c + 2; *e; e++)
        if (*e == '*' && e[-1] != ' ')
            return e;
    return NULL;
}

/* Characters as roff writes them (code: the ASCII dash and quote). */
static void roff_chars(FILE *out, const char *c, const char *end, int code)
{
    int len;
    for (; c < end; c += len) {
        const char *esc = roff_char(c, code, &len);
        if (esc)
            fputs(esc, out);
        else
            fputc(*c, out);
    }
}

/* Text with `code` and *emphasis*, as roff on the current line. What is emphasised (values,
 * file names, formulas) keeps its dashes and quotes ASCII too. */
static void roff_inline(FILE *out, const char *text)
{
    for (const char *c = text; *c;) {
        const char *close = NULL;
        if ((*c == '`' && (close = strchr(c + 1, '`')) != NULL) ||
            (*c == '*' && (close = emphasis_end(c)) != NULL)) {
            fputs(*c == '`' ? "\\fB" : "\\fI", out);
            roff_chars(out, c + 1, close, 1);
            fputs("\\fR", out);
            c = close + 1;
        } else {
            int len;
            const char *esc = roff_char(c, 0, &len);
            if (esc)
                fputs(esc, out);
            else
                fputc(*c, out);
            c += len;
        }
    }
}

/* One line of text; code: an example's line, set as it is. */
static void roff_text(FILE *out, const char *text, int code)
{
    if (text[0] == '.' || text[0] == '\'')
        fputs("\\&", out);
    if (code)
        roff_chars(out, text, text + strlen(text), 1);
    else
        roff_inline(out, text);
    fputc('\n', out);
}

/* A list item's label: the leading `code` or *emphasis* up to ": ", or NULL (a bullet). */
static const char *item_text(const char *item, char *label, size_t size)
{
    const char *colon = strstr(item, ": ");
    if ((item[0] != '`' && item[0] != '*') || !colon || (size_t)(colon - item) >= size)
        return NULL;
    memcpy(label, item, (size_t)(colon - item));
    label[colon - item] = '\0';
    return colon + 2;
}

/* A block's body as roff. nested: inside an option's .TP, where a new paragraph is .IP and a
 * list is indented (.RS); at the top, .PP and the list's .TP at the margin. */
static void roff_body(FILE *out, const block *b, int nested)
{
    int i = b->first, first = 1;
    while (i < b->end) {
        if (!lines[i][0]) {
            i++;
            continue;
        }
        if (strncmp(lines[i], "    ", 4) == 0) { /* an example */
            fputs(first ? "" : nested ? ".IP\n" : ".PP\n", out);
            fputs(".RS\n.EX\n", out);
            for (; i < b->end && (strncmp(lines[i], "    ", 4) == 0 || !lines[i][0]) &&
                   !(!lines[i][0] && (i + 1 >= b->end || strncmp(lines[i + 1], "    ", 4) != 0));
                 i++)
                roff_text(out, lines[i][0] ? lines[i] + 4 : "", 1);
            fputs(".EE\n.RE\n", out);
        } else if (strncmp(lines[i], "- ", 2) == 0) { /* a list */
            if (nested)
                fputs(".RS\n", out);
            while (i < b->end && strncmp(lines[i], "- ", 2) == 0) {
                char label[256];
                const char *text = item_text(lines[i] + 2, label, sizeof label);
                if (text) {
                    fputs(".TP\n", out);
                    roff_text(out, label, 0);
                    roff_text(out, text, 0);
                } else {
                    fputs(".IP \\(bu 2\n", out);
                    roff_text(out, lines[i] + 2, 0);
                }
                for (i++; i < b->end && strncmp(lines[i], "  ", 2) == 0 && lines[i][2] != ' ';
                     i++)
                    roff_text(out, lines[i] + 2, 0);
                while (i < b->end && !lines[i][0] && i + 1 < b->end &&
                       strncmp(lines[i + 1], "- ", 2) == 0)
                    i++;
            }
            if (nested)
                fputs(".RE\n", out);
        } else { /* a paragraph */
            fputs(first ? "" : nested ? ".IP\n" : ".PP\n", out);
            for (; i < b->end && lines[i][0] && strncmp(lines[i], "- ", 2) != 0 &&
                   strncmp(lines[i], "    ", 4) != 0;
                 i++)
                roff_text(out, lines[i], 0);
        }
        first = 0;
    }
}

/* ---- The document: the chapters in order, the option table in OPTIONS ------------------ */

/* How one kind of document sets each part; write_document walks the source and the table
 * once for both, so that the manual and the man page cannot differ in what they hold. */
typedef struct {
    const char *chapter, *section;  /* printf formats of a chapter's and a section's heading */
    const char *before, *after;     /* before the text before and after a section's options */
    const char *option, *labels_end; /* before an option's labels, and after them */
    void (*label)(FILE *out, const char *label);
    void (*body)(FILE *out, const block *b, int nested); /* nested: an option's description */
} doc_format;

static const doc_format markdown = {"\n## %s\n\n", "\n### %s\n", "\n", "\n",
                                    "\n#### ", "\n\n", md_label, md_body};
static const doc_format man_page = {".SH %s\n", ".SS %s\n", "", ".PP\n",
                                    ".TP\n", "\n", roff_inline, roff_body};

/* Section s of OPTIONS: its heading, its text before, each option the table describes with
 * the labels of those that share its description (-sL, -sT), its text after. */
static void write_section(FILE *out, const doc_format *f, int s)
{
    const block *before = find(B_BEFORE, cli_sections[s].id);
    const block *after = find(B_AFTER, cli_sections[s].id);
    fprintf(out, f->section, cli_sections[s].title);
    if (before) {
        fputs(f->before, out);
        f->body(out, before, 0);
    }
    for (size_t i = 0; i < cli_option_count; i++) {
        const cli_option *opt = &cli_options[i];
        if (opt->section != (cli_section)s || opt->doc != CLI_DOC_OWN)
            continue;
        char label[160];
        fputs(f->option, out);
        for (size_t k = i; k == i || (k < cli_option_count &&
                                     cli_options[k].doc != CLI_DOC_OWN);
             k++) {
            label_text(&cli_options[k], label, sizeof label);
            fputs(k == i ? "" : ", ", out);
            f->label(out, label);
        }
        fputs(f->labels_end, out);
        f->body(out, find(B_OPTION, key_of(opt)), 1);
    }
    if (after) {
        fputs(f->after, out);
        f->body(out, after, 0);
    }
}

static void write_document(FILE *out, const doc_format *f)
{
    for (int c = 0; c < n_blocks; c++) {
        if (blocks[c].kind != B_CHAPTER)
            continue;
        fprintf(out, f->chapter, blocks[c].name);
        f->body(out, &blocks[c], 0);
        if (strcmp(blocks[c].name, "OPTIONS") != 0)
            continue;
        for (int s = 0; s < CLI_SECTION_COUNT; s++)
            write_section(out, f, s);
    }
}

static void write_markdown(FILE *out)
{
    fputs("<!-- Made by `make manual` from the option table (src/files/option_table.c) and\n"
          "     cli/manual_source.md: edit those, not this file. -->\n"
          "# tiledconv(1)\n",
          out);
    write_document(out, &markdown);
}

static void write_man(FILE *out, const char *version)
{
    fprintf(out,
            ".\\\" tiledconv.1 - the manual page, made by `make manual` from the option table\n"
            ".\\\" (src/files/option_table.c) and cli/manual_source.md: edit those, not this file.\n"
            ".\\\" View it with: man -l tiledconv.1\n"
            ".TH TILEDCONV 1 \"2026\" \"tiledconv %s\" \"User Commands\"\n",
            version);
    write_document(out, &man_page);
}

/* Every option of the table described once, every description an option's, every section
 * text a section's. */
static void check_source(void)
{
    for (size_t i = 0; i < cli_option_count; i++) {
        const cli_option *opt = &cli_options[i];
        const block *b = find(B_OPTION, key_of(opt));
        if (opt->doc == CLI_DOC_OWN && !b)
            die("no description (## option NAME) of the option", key_of(opt));
        if (opt->doc != CLI_DOC_OWN && b)
            die("a description of an option the table describes with the one before it",
                key_of(opt));
    }
    for (int s = 0; s < CLI_SECTION_COUNT; s++) {
        find(B_BEFORE, cli_sections[s].id);
        find(B_AFTER, cli_sections[s].id);
    }
    for (int i = 0; i < n_blocks; i++) {
        if (blocks[i].kind != B_CHAPTER && !blocks[i].used)
            die("a description of no option or section of the table", blocks[i].name);
        blocks[i].used = 0;
    }
    if (n_blocks == 0 || blocks[0].kind != B_CHAPTER)
        die("the source must start with a chapter (# NAME)", NULL);
    if (!find(B_CHAPTER, "OPTIONS"))
        die("no chapter OPTIONS", NULL);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: manual SOURCE.md VERSION OUT.md OUT.1\n");
        return 2;
    }
    read_source(argv[1]);
    check_source();
    FILE *md = fopen(argv[3], "w"), *man = fopen(argv[4], "w");
    if (!md || !man)
        die("cannot write", !md ? argv[3] : argv[4]);
    write_markdown(md);
    write_man(man, argv[2]);
    if (fclose(md) != 0 || fclose(man) != 0)
        die("write error", NULL);
    return 0;
}
