/* rsp-theme.c — the light and dark palettes. */
#include "rsp-theme.h"

static RspColor
mix (RspColor a, RspColor b, double t)
{
  RspColor c = { a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t };
  return c;
}

static RspColor
rgb (guint32 hex)
{
  RspColor c = { ((hex >> 16) & 0xff) / 255.0, ((hex >> 8) & 0xff) / 255.0, (hex & 0xff) / 255.0 };
  return c;
}

void
rsp_theme_init (RspTheme *theme, gboolean dark, double scale)
{
  theme->dark = dark;
  theme->scale = scale > 0 ? scale : 1.0;
  theme->font = "Sans";
  theme->font_size = 11.0;
  theme->row_height = 18.0;
  if (dark)
    {
      theme->background = rgb (0x1e1e1e);
      theme->foreground = rgb (0xeeeeee);
      theme->muted = rgb (0x9a9a9a);
      theme->grid = rgb (0x3a3a3a);
      theme->run = rgb (0xe0524f);
      theme->sleep = rgb (0x4a86e8);
      theme->both = rgb (0xa05fd0);
      theme->task = rgb (0x6b6b6b);
      theme->disk = rgb (0x4caf50);
      theme->network = rgb (0x26a7a0);
      theme->link = rgb (0xd8d8d8);
      theme->highlight = rgb (0xffd54f);
      theme->selection = rgb (0x5e8fd6);
    }
  else
    {
      theme->background = rgb (0xffffff);
      theme->foreground = rgb (0x1a1a1a);
      theme->muted = rgb (0x6e6e6e);
      theme->grid = rgb (0xe4e4e4);
      theme->run = rgb (0xd9413e);
      theme->sleep = rgb (0x3b78e7);
      theme->both = rgb (0x8e44ad);
      theme->task = rgb (0xa9a9a9);
      theme->disk = rgb (0x2e9e4f);
      theme->network = rgb (0x1a9c96);
      theme->link = rgb (0x303030);
      theme->highlight = rgb (0xf9c80e);
      theme->selection = rgb (0x3b78e7);
    }
  /* tints of their base colours toward the background: the same hue, less
   * weight, in either theme */
  theme->waiting = mix (theme->sleep, theme->background, 0.55);
  theme->disk_queue = mix (theme->disk, theme->background, 0.6);
  theme->diff_more = theme->run;
  theme->diff_less = theme->sleep;
  theme->diff_same = mix (theme->task, theme->background, 0.5);
}
