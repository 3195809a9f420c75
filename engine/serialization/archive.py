"""torch's zip archive, written byte for byte as torch 2.15 writes it, and read back.

torch.save writes an uncompressed zip (its C++ ``PyTorchFileWriter``, built on miniz).
Every record's bytes start at a multiple of 64 (so a loader can ``mmap`` a storage and use
it in place): the local header carries an extra field ``FB`` + length + ``Z`` padding.
Sizes and CRC follow each record in a data descriptor, and the archive ends with the zip64
end records before the classic one. Reading uses the standard library's ``zipfile`` for
the directory, then reads each storage straight into a numpy array (one copy, no
decompression: the records are stored as they are).
"""
import os
import struct
import zipfile
import zlib

import numpy as np

ALIGNMENT = 64
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_DESCRIPTOR = struct.Struct("<IIII")
_ZIP64_END = struct.Struct("<IQHHIIQQQQ")
_ZIP64_LOCATOR = struct.Struct("<IIQI")
_END = struct.Struct("<IHHHHIIH")

MINIZ_MESSAGE = ("This is an internal miniz error. If you are seeing this error, there is a high "
                 "likelihood that your checkpoint file is corrupted. This can happen if the "
                 "checkpoint was not saved properly, was transferred incorrectly, or the file was "
                 "modified after saving.")


def archive_name(f):
    """The folder inside the zip: a path's file name without its last extension, as torch
    names it; ``archive`` for a file object."""
    if isinstance(f, (str, os.PathLike)):
        base = os.path.basename(os.fspath(f))
        stem, dot, _ = base.rpartition(".")
        return stem if dot else base
    return "archive"


class ArchiveWriter:
    """Writes records one after another into ``out`` (any binary file object)."""

    def __init__(self, out, name):
        self.out, self.prefix = out, name + "/"
        self.position = 0
        self.entries = []  # (name bytes, crc, size, flags, local header offset)

    def _write(self, data):
        self.out.write(data)
        self.position += len(data)

    def write_record(self, name, data):
        """One stored record; ``data`` is bytes or a contiguous numpy array."""
        name = (self.prefix + name).encode()
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        size = len(view)
        # the 4 bytes of the FB field's header count before the data's start too
        start = self.position + _LOCAL.size + len(name) + 4
        padding = -start % ALIGNMENT
        extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
        flags = 0x0808 if size else 0x0800  # UTF-8 names; sizes in a descriptor after data
        offset = self.position
        self._write(_LOCAL.pack(0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0, len(name), len(extra)))
        self._write(name + extra)
        crc = zlib.crc32(view) if size else 0
        if size:
            self._write(view)
            self._write(_DESCRIPTOR.pack(0x08074B50, crc, size, size))
        self.entries.append((name, crc, size, flags, offset))

    def finish(self):
        """The central directory and the end records (zip64 ones first, as miniz writes)."""
        directory = self.position
        for name, crc, size, flags, offset in self.entries:
            self._write(_CENTRAL.pack(0x02014B50, 0, 0, flags, 0, 0, 0, crc, size, size,
                                      len(name), 0, 0, 0, 0, 0, offset) + name)
        directory_size = self.position - directory
        zip64_end = self.position
        count = len(self.entries)
        self._write(_ZIP64_END.pack(0x06064B50, 44, 0x031E, 45, 0, 0, count, count,
                                    directory_size, directory))
        self._write(_ZIP64_LOCATOR.pack(0x07064B50, 0, zip64_end, 1))
        self._write(_END.pack(0x06054B50, 0, 0, count, count, directory_size, directory, 0))


def is_zip(f):
    """torch's test: the file starts with a zip local header's signature."""
    start = f.tell()
    magic = f.read(4)
    f.seek(start)
    return magic == b"PK\x03\x04"


class ArchiveReader:
    """The records of a torch zip archive, by name inside its folder."""

    def __init__(self, f):
        self.f = f
        try:
            self.zip = zipfile.ZipFile(f)
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError):
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding "
                               "central directory. " + MINIZ_MESSAGE) from None
        # torch takes the folder from the first record's name
        first = infos[0].filename if infos else ""
        self.prefix = first.split("/", 1)[0] + "/"
        self.infos = {info.filename: info for info in infos}

    def has(self, name):
        return self.prefix + name in self.infos

    def _info(self, name):
        info = self.infos.get(self.prefix + name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not "
                               "found. " + MINIZ_MESSAGE)
        return info

    def data_offset(self, name):
        """Where a record's bytes start in the file (after its local header)."""
        info = self._info(name)
        self.f.seek(info.header_offset)
        header = self.f.read(_LOCAL.size)
        if len(header) != _LOCAL.size or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: file read "
                               "failed. " + MINIZ_MESSAGE)
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        return info.header_offset + _LOCAL.size + name_length + extra_length, info

    def read_bytes(self, name):
        offset, info = self.data_offset(name)
        if info.compress_type != zipfile.ZIP_STORED:
            return self.zip.read(info)  # (torch writes stored records; a re-zipped file may not)
        self.f.seek(offset)
        data = self.f.read(info.file_size)
        if len(data) != info.file_size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: file read "
                               "failed. " + MINIZ_MESSAGE)
        return data

    def read_array(self, name, np_dtype, mmap_path=None):
        """A record as a writable 1-D numpy array of ``np_dtype`` (its own copy, or with
        ``mmap_path`` a copy-on-write map of the file, as torch's ``mmap=True``)."""
        offset, info = self.data_offset(name)
        count = info.file_size // np.dtype(np_dtype).itemsize
        if info.compress_type != zipfile.ZIP_STORED:
            return np.frombuffer(bytearray(self.zip.read(info)), np_dtype, count)
        if mmap_path is not None and count:
            return np.memmap(mmap_path, np_dtype, "c", offset, (count,))
        array = np.empty(count, np_dtype)
        self.f.seek(offset)
        if self.f.readinto(memoryview(array).cast("B")) != array.nbytes:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: file read "
                               "failed. " + MINIZ_MESSAGE)
        return array
