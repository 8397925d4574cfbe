/* The libretro log callback is C-variadic, which stable Rust cannot define: this shim formats the line
   and hands it to the Rust frontend (backends/mednafen/frontend.rs). */
#include <stdarg.h>
#include <stdio.h>

void psxanim_mednafen_log_line(unsigned level, const char *line);

void psxanim_libretro_log(unsigned level, const char *fmt, ...)
{
    char line[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    psxanim_mednafen_log_line(level, line);
}
