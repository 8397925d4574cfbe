/*
 * The three C library functions psxanim's library calls (memcpy, memset, memcmp): a game with an SDK
 * links the SDK's; this program has none. Built with -fno-builtin -fno-tree-loop-distribute-patterns
 * so GCC does not turn these loops back into calls to themselves.
 */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if ((((uintptr_t)d | (uintptr_t)s | n) & 3) == 0) {
        uint32_t *dw = dst;
        const uint32_t *sw = src;
        for (size_t i = 0; i < n / 4; i++)
            dw[i] = sw[i];
        return dst;
    }
    for (size_t i = 0; i < n; i++)
        d[i] = s[i];
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}
