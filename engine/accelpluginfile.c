/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* accel: what a plugin file is before it is opened. The dynamic loader maps
 * a file's segments as its headers describe them: a file cut short (a copy
 * that did not finish) maps pages past its end, and the process died of
 * SIGBUS inside dlopen(). And a plugin copied under another name registers
 * its types again, which GLib answers with a critical for each. So the
 * headers are read first: every loaded segment has to lie in the file, and
 * the file's build ID tells a copy of a plugin loaded already */
#define G_LOG_DOMAIN "accel-registry"

#include "accel-private.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

/* the GNU build ID note's owner */
#define BUILD_ID_OWNER "GNU"

#if GLIB_SIZEOF_VOID_P == 8
#define NATIVE_CLASS ELFCLASS64
#else
#define NATIVE_CLASS ELFCLASS32
#endif

static gboolean
read_at (int fd, guint64 offset, gpointer buf, gsize size, goffset file_size)
{
  if (offset > (guint64)file_size || size > (guint64)file_size - offset)
    return FALSE;
  return pread (fd, buf, size, offset) == (gssize)size;
}

/* the hex of the build ID in the note segment at @phdr, or NULL */
static gchar *
build_id_in (int fd, const ElfW (Phdr) * phdr, goffset file_size)
{
  g_autofree guint8 *notes = NULL;
  guint64 pos = 0, size = phdr->p_filesz;
  /* notes are padded to the segment's alignment, 4 or 8 */
  guint64 align = phdr->p_align == 8 ? 8 : 4;

  if (size == 0 || size > 65536)
    return NULL;
  notes = g_malloc (size);
  if (!read_at (fd, phdr->p_offset, notes, size, file_size))
    return NULL;
  while (pos + sizeof (ElfW (Nhdr)) <= size)
    {
      ElfW (Nhdr) nhdr;
      guint64 name_at = pos + sizeof nhdr, desc_at, next;

      memcpy (&nhdr, notes + pos, sizeof nhdr);
      /* in 64 bits: a note's sizes are 32-bit words */
      desc_at = name_at + (((guint64)nhdr.n_namesz + align - 1) & ~(align - 1));
      next = desc_at + (((guint64)nhdr.n_descsz + align - 1) & ~(align - 1));
      if (next > size || desc_at + nhdr.n_descsz > size)
        return NULL;
      if (nhdr.n_type == NT_GNU_BUILD_ID
          && nhdr.n_namesz == sizeof BUILD_ID_OWNER
          && memcmp (notes + name_at, BUILD_ID_OWNER, sizeof BUILD_ID_OWNER)
                 == 0
          && nhdr.n_descsz > 0)
        {
          GString *hex = g_string_sized_new (2 * nhdr.n_descsz);
          for (guint i = 0; i < nhdr.n_descsz; i++)
            g_string_append_printf (hex, "%02x", notes[desc_at + i]);
          return g_string_free (hex, FALSE);
        }
      pos = next;
    }
  return NULL;
}

/**
 * accel_plugin_file_check:
 * @path: a plugin module's file
 * @build_id: (out) (optional) (transfer full): the hex of its build ID,
 *   or %NULL when it has none
 * @error: return location for a #GError, or %NULL
 *
 * Reads @path's ELF headers: it has to be a shared object of this machine
 * whose loaded segments lie within the file. A @path that names no file
 * as it is (a bare name the dynamic loader searches for, a name without
 * its suffix, which GModule completes) is left to the loader: %TRUE.
 *
 * Returns: whether dlopen() may be given @path; %FALSE with
 *   %ACCEL_ERROR_FAILED when it cannot be read (out of descriptors, not
 *   readable) or is no shared object of this machine. MT safe.
 */
gboolean
accel_plugin_file_check (const char *path, gchar **build_id, GError **error)
{
  ElfW (Ehdr) ehdr;
  ElfW (Phdr) phdr;
  struct stat st;
  int fd, saved_errno;

  if (build_id)
    *build_id = NULL;
  if (!strchr (path, G_DIR_SEPARATOR))
    return TRUE;
  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0 && errno == ENOENT)
    return TRUE;
  if (fd < 0 || fstat (fd, &st) != 0)
    goto unreadable;
  if (!S_ISREG (st.st_mode) || !read_at (fd, 0, &ehdr, sizeof ehdr, st.st_size)
      || memcmp (ehdr.e_ident, ELFMAG, SELFMAG) != 0
      || ehdr.e_ident[EI_CLASS] != NATIVE_CLASS || ehdr.e_type != ET_DYN
      || ehdr.e_phentsize != sizeof (ElfW (Phdr)))
    goto not_a_shared_object;
  for (guint i = 0; i < ehdr.e_phnum; i++)
    {
      if (ehdr.e_phoff > (guint64)st.st_size
          || !read_at (fd, ehdr.e_phoff + (guint64)i * sizeof phdr, &phdr,
              sizeof phdr, st.st_size))
        goto headers_cut_short;
      /* a segment of no file bytes (all zeros) maps nothing */
      if (phdr.p_type == PT_LOAD && phdr.p_filesz > 0
          && (phdr.p_offset > (guint64)st.st_size
              || phdr.p_filesz > (guint64)st.st_size - phdr.p_offset))
        goto segment_cut_short;
      if (phdr.p_type == PT_NOTE && build_id && !*build_id)
        *build_id = build_id_in (fd, &phdr, st.st_size);
    }
  close (fd);
  return TRUE;

  /* ERRORS */
unreadable:
  {
    saved_errno = errno;
    if (fd >= 0)
      close (fd);
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "cannot load plugin %s: %s", path, g_strerror (saved_errno));
    return FALSE;
  }
not_a_shared_object:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "%s is not a shared object of this machine", path);
    goto failed;
  }
headers_cut_short:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "%s is cut short: its headers end past its %" G_GOFFSET_FORMAT " bytes",
        path, (goffset)st.st_size);
    goto failed;
  }
segment_cut_short:
  {
    g_set_error (error, ACCEL_ERROR, ACCEL_ERROR_FAILED,
        "%s is cut short: a segment ends at byte %" G_GUINT64_FORMAT
        ", past its %" G_GOFFSET_FORMAT " bytes",
        path, (guint64)phdr.p_offset + phdr.p_filesz, (goffset)st.st_size);
    goto failed;
  }
failed:
  {
    close (fd);
    if (build_id)
      g_clear_pointer (build_id, g_free);
    return FALSE;
  }
}
