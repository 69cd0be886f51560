#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>
#include "CMemory.h"

int ssvc_trim_heap(void) {
    return malloc_trim(0);
}

int ssvc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

/// Whether the loader may have written into the object's read-only
/// segments (text relocations): those pages are private copies now, and
/// dropping them would bring back the file's unrelocated bytes.
static int has_text_relocations(const struct dl_phdr_info *info) {
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_DYNAMIC) continue;
        const ElfW(Dyn) *entry = (const ElfW(Dyn) *)(info->dlpi_addr + header->p_vaddr);
        for (; entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_TEXTREL) return 1;
            if (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

/// Whether `address` lies in one of the object's loadable segments.
static int contains(const struct dl_phdr_info *info, uintptr_t address) {
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (address >= start && address < start + header->p_memsz) return 1;
    }
    return 0;
}

static int release_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    size_t *released = data;
    uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (vdso != 0 && contains(info, vdso)) return 0;
    if (has_text_relocations(info)) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W)) continue;
        // Whole pages inside the segment only: a page it shares with a
        // neighbour is left alone.
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        uintptr_t end = start + header->p_memsz;
        start = (start + page - 1) & ~(page - 1);
        end &= ~(page - 1);
        if (end <= start) continue;
        if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) *released += end - start;
    }
    return 0;
}

size_t ssvc_release_code_pages(void) {
    size_t released = 0;
    dl_iterate_phdr(release_object, &released);
    return released;
}
