#ifndef VAULT_CCHAFA_SHIM_H
#define VAULT_CCHAFA_SHIM_H

// Pictures on a terminal (issue 56): decoded by Debian's libpng and libjpeg-turbo, drawn by libchafa. Both steps are
// here in C because libjpeg reports errors by longjmp, which Swift cannot catch; Swift sees only these functions.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>
#include <jpeglib.h>
#include <chafa.h>

enum {
    VAULT_PICTURE_OK = 0,
    VAULT_PICTURE_UNKNOWN_TYPE = 1,
    VAULT_PICTURE_DAMAGED = 2,
    VAULT_PICTURE_TOO_LARGE = 3,
    VAULT_PICTURE_NO_MEMORY = 4,
};

struct vault_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    /// What the jump returns: damaged, unless the scan limit said too large.
    int reason;
};

static void vault_jpeg_exit(j_common_ptr info) { longjmp(((struct vault_jpeg_error *)info->err)->jump, 1); }
static void vault_jpeg_quiet(j_common_ptr info) { (void)info; }

/// Scans a progressive JPEG may have. Each scan is decoded over the whole picture, so a file of 60,000 scans (a few
/// MB) took minutes; libjpeg-turbo's own mitigation is a scan limit through the progress monitor (its djpeg
/// `-maxscans`, TurboJPEG's scan limit). Encoders write about ten.
#define VAULT_JPEG_MAX_SCANS 100

static void vault_jpeg_progress(j_common_ptr info) {
    if (info->is_decompressor && ((j_decompress_ptr)info)->input_scan_number > VAULT_JPEG_MAX_SCANS) {
        struct vault_jpeg_error *error = (struct vault_jpeg_error *)info->err;
        error->reason = VAULT_PICTURE_TOO_LARGE;
        longjmp(error->jump, 1);
    }
}

/// Decodes a PNG or JPEG (told apart by their signatures, whatever the file claims) into RGBA, 8 bits a channel.
/// Refuses one over `max_pixels` from its header, before any pixel is allocated; a JPEG that needed a warning to
/// decode (truncated, damaged) is refused as damaged. `*rgba` is freed with free().
static inline int vault_picture_decode(const unsigned char *data, size_t size, unsigned long long max_pixels,
                                       unsigned char **rgba, unsigned *width, unsigned *height) {
    *rgba = NULL;
    *width = 0;
    *height = 0;
    if (size >= 8 && png_sig_cmp((png_const_bytep)data, 0, 8) == 0) {
        png_image image;
        memset(&image, 0, sizeof image);
        image.version = PNG_IMAGE_VERSION;
        if (!png_image_begin_read_from_memory(&image, data, size)) return VAULT_PICTURE_DAMAGED;
        if (image.width == 0 || image.height == 0 || (unsigned long long)image.width * image.height > max_pixels) {
            png_image_free(&image);
            return VAULT_PICTURE_TOO_LARGE;
        }
        image.format = PNG_FORMAT_RGBA;
        unsigned char *pixels = malloc(PNG_IMAGE_SIZE(image));
        if (!pixels) {
            png_image_free(&image);
            return VAULT_PICTURE_NO_MEMORY;
        }
        if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
            free(pixels);
            png_image_free(&image);
            return VAULT_PICTURE_DAMAGED;
        }
        *width = image.width;
        *height = image.height;
        *rgba = pixels;
        return VAULT_PICTURE_OK;
    }
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
        struct jpeg_decompress_struct info;
        struct vault_jpeg_error error;
        struct jpeg_progress_mgr progress;
        unsigned char *volatile pixels = NULL;
        info.err = jpeg_std_error(&error.manager);
        error.manager.error_exit = vault_jpeg_exit;
        error.manager.output_message = vault_jpeg_quiet;
        error.reason = VAULT_PICTURE_DAMAGED;
        if (setjmp(error.jump)) {
            jpeg_destroy_decompress(&info);
            free(pixels);
            return error.reason;
        }
        jpeg_create_decompress(&info);
        memset(&progress, 0, sizeof progress);
        progress.progress_monitor = vault_jpeg_progress;
        info.progress = &progress;
        jpeg_mem_src(&info, data, (unsigned long)size);
        jpeg_read_header(&info, TRUE);
        if (info.image_width == 0 || info.image_height == 0
            || (unsigned long long)info.image_width * info.image_height > max_pixels) {
            jpeg_destroy_decompress(&info);
            return VAULT_PICTURE_TOO_LARGE;
        }
        info.out_color_space = JCS_EXT_RGBA;
        jpeg_start_decompress(&info);
        size_t stride = (size_t)info.output_width * 4;
        pixels = malloc(stride * info.output_height);
        if (!pixels) {
            jpeg_destroy_decompress(&info);
            return VAULT_PICTURE_NO_MEMORY;
        }
        while (info.output_scanline < info.output_height) {
            JSAMPROW row = pixels + (size_t)info.output_scanline * stride;
            jpeg_read_scanlines(&info, &row, 1);
            if (error.manager.num_warnings > 0) break;
        }
        if (error.manager.num_warnings > 0) {
            jpeg_destroy_decompress(&info);
            free(pixels);
            return VAULT_PICTURE_DAMAGED;
        }
        jpeg_finish_decompress(&info);
        *width = info.output_width;
        *height = info.output_height;
        jpeg_destroy_decompress(&info);
        *rgba = pixels;
        return VAULT_PICTURE_OK;
    }
    return VAULT_PICTURE_UNKNOWN_TYPE;
}

/// How a picture is drawn: `pixel_mode` 0 symbols, 1 sixels, 2 kitty; `colors` 0 none (foreground and background
/// only), 1 16 colours, 2 256, 3 true colour. Fitted inside `columns` x `rows` cells, keeping its proportions (cells
/// twice as tall as wide). The escape text is returned (free() it) with its length; NULL when chafa gave nothing.
static inline char *vault_picture_draw(const unsigned char *rgba, unsigned width, unsigned height, int columns, int rows,
                                       int pixel_mode, int colors, size_t *length) {
    gint fit_width = columns, fit_height = rows;
    chafa_calc_canvas_geometry((gint)width, (gint)height, &fit_width, &fit_height, 0.5f, TRUE, FALSE);
    if (fit_width < 1) fit_width = 1;
    if (fit_height < 1) fit_height = 1;
    ChafaCanvasConfig *config = chafa_canvas_config_new();
    chafa_canvas_config_set_geometry(config, fit_width, fit_height);
    chafa_canvas_config_set_pixel_mode(config, pixel_mode == 2 ? CHAFA_PIXEL_MODE_KITTY
                                                : pixel_mode == 1 ? CHAFA_PIXEL_MODE_SIXELS : CHAFA_PIXEL_MODE_SYMBOLS);
    chafa_canvas_config_set_canvas_mode(config, colors == 3 ? CHAFA_CANVAS_MODE_TRUECOLOR
                                                : colors == 2 ? CHAFA_CANVAS_MODE_INDEXED_240
                                                : colors == 1 ? CHAFA_CANVAS_MODE_INDEXED_16 : CHAFA_CANVAS_MODE_FGBG);
    ChafaSymbolMap *symbols = chafa_symbol_map_new();
    chafa_symbol_map_add_by_tags(symbols, colors == 0 ? (ChafaSymbolTags)(CHAFA_SYMBOL_TAG_BLOCK | CHAFA_SYMBOL_TAG_BRAILLE | CHAFA_SYMBOL_TAG_SPACE)
                                                      : (ChafaSymbolTags)(CHAFA_SYMBOL_TAG_BLOCK | CHAFA_SYMBOL_TAG_BORDER | CHAFA_SYMBOL_TAG_SPACE));
    chafa_canvas_config_set_symbol_map(config, symbols);
    ChafaCanvas *canvas = chafa_canvas_new(config);
    chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, rgba, (gint)width, (gint)height, (gint)(width * 4));
    ChafaTermInfo *terminal = chafa_term_db_get_fallback_info(chafa_term_db_get_default());
    GString *text = chafa_canvas_print(canvas, terminal);
    char *result = NULL;
    if (text) {
        *length = text->len;
        result = g_string_free(text, FALSE);
    }
    chafa_term_info_unref(terminal);
    chafa_canvas_unref(canvas);
    chafa_symbol_map_unref(symbols);
    chafa_canvas_config_unref(config);
    return result;
}

#endif
