"""torch's zip archive, written byte for byte as torch 2.15 writes it, and read back.

torch.save writes an uncompressed zip (its C++ ``PyTorchFileWriter``, built on miniz).
Every record's bytes start at a multiple of 64 (so a loader can ``mmap`` a storage and use
it in place): the local header carries an extra field ``FB`` + length + ``Z`` padding.
Sizes and CRC follow each record in a data descriptor, and the archive ends with the zip64
end records before the classic one. Reading finds the central directory (the list of
records at the end), then reads each storage straight into a numpy array (one copy, no
decompression: the records are stored as they are).
"""
import os
import struct
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


class Record:
    """One entry of the zip's central directory."""

    __slots__ = ("name", "method", "compressed_size", "size", "header_offset")

    def __init__(self, name, method, compressed_size, size, header_offset):
        self.name, self.method = name, method
        self.compressed_size, self.size, self.header_offset = compressed_size, size, header_offset


class CorruptArchive(Exception):
    """The end records or the central directory cannot be read."""


def read_directory(f):
    """The records of the zip in ``f`` (the standard library's zipfile would do, but costs
    the engine's import twice this file: it brings shutil, bz2 and lzma along)."""
    f.seek(0, 2)
    size = f.tell()
    tail_start = max(0, size - (_END.size + 0xFFFF))  # the end record, then a comment
    f.seek(tail_start)
    tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        raise CorruptArchive
    _, _, _, _, count, directory_size, directory, _ = _END.unpack_from(tail, at)
    end = tail_start + at
    base = end - directory_size - directory  # (bytes before the archive, as zipfile allows)
    locator = at - _ZIP64_LOCATOR.size
    if locator >= 0 and tail[locator:locator + 4] == b"PK\x06\x07":
        zip64_end = _ZIP64_LOCATOR.unpack_from(tail, locator)[2]
        f.seek(zip64_end)
        fields = _ZIP64_END.unpack(f.read(_ZIP64_END.size))
        count, directory_size, directory = fields[7], fields[8], fields[9]
        base = end - _ZIP64_LOCATOR.size - _ZIP64_END.size - directory_size - directory
    f.seek(base + directory)
    table = f.read(directory_size)
    if len(table) != directory_size:
        raise CorruptArchive
    records, position = [], 0
    for _ in range(count):
        if table[position:position + 4] != b"PK\x01\x02":
            raise CorruptArchive
        fields = _CENTRAL.unpack_from(table, position)
        flags, method = fields[3], fields[4]
        compressed, plain, name_length, extra_length, comment_length = fields[8:13]
        offset = fields[16]
        start = position + _CENTRAL.size
        raw_name = table[start:start + name_length]
        extra = table[start + name_length:start + name_length + extra_length]
        if 0xFFFFFFFF in (compressed, plain, offset):
            plain, compressed, offset = _zip64_values(extra, plain, compressed, offset)
        name = raw_name.decode("utf-8" if flags & 0x800 else "cp437")
        records.append(Record(name, method, compressed, plain, base + offset))
        position = start + name_length + extra_length + comment_length
    return records


def _zip64_values(extra, plain, compressed, offset):
    """Sizes and offset too large for 32 bits, from the zip64 extra field (id 1)."""
    position = 0
    while position + 4 <= len(extra):
        kind, length = struct.unpack_from("<HH", extra, position)
        if kind == 1:
            values = list(struct.unpack_from(f"<{length // 8}Q", extra, position + 4))
            if plain == 0xFFFFFFFF:
                plain = values.pop(0)
            if compressed == 0xFFFFFFFF:
                compressed = values.pop(0)
            if offset == 0xFFFFFFFF:
                offset = values.pop(0)
            return plain, compressed, offset
        position += 4 + length
    raise CorruptArchive


class ArchiveReader:
    """The records of a torch zip archive, by name inside its folder."""

    def __init__(self, f):
        self.f = f
        try:
            records = read_directory(f)
        except (CorruptArchive, struct.error, UnicodeDecodeError, ValueError, OSError):
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding "
                               "central directory. " + MINIZ_MESSAGE) from None
        # torch takes the folder from the first record's name
        first = records[0].name if records else ""
        self.prefix = first.split("/", 1)[0] + "/"
        self.records = {record.name: record for record in records}

    def has(self, name):
        return self.prefix + name in self.records

    def _info(self, name):
        info = self.records.get(self.prefix + name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not "
                               "found. " + MINIZ_MESSAGE)
        return info

    def _failed(self, name):
        return RuntimeError(f"PytorchStreamReader failed reading file {name}: file read "
                            "failed. " + MINIZ_MESSAGE)

    def data_offset(self, name):
        """Where a record's bytes start in the file (after its local header)."""
        info = self._info(name)
        self.f.seek(info.header_offset)
        header = self.f.read(_LOCAL.size)
        if len(header) != _LOCAL.size or header[:4] != b"PK\x03\x04":
            raise self._failed(name)
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        return info.header_offset + _LOCAL.size + name_length + extra_length, info

    def read_bytes(self, name):
        offset, info = self.data_offset(name)
        self.f.seek(offset)
        data = self.f.read(info.compressed_size)
        if len(data) != info.compressed_size:
            raise self._failed(name)
        if info.method == 8:  # deflated (torch stores; a re-zipped file may not)
            data = zlib.decompress(data, -15)
        elif info.method != 0:
            raise self._failed(name)
        return data

    def read_array(self, name, np_dtype, mmap_path=None):
        """A record as a writable 1-D numpy array of ``np_dtype`` (its own copy, or with
        ``mmap_path`` a copy-on-write map of the file, as torch's ``mmap=True``)."""
        offset, info = self.data_offset(name)
        count = info.size // np.dtype(np_dtype).itemsize
        if info.method != 0:
            return np.frombuffer(bytearray(self.read_bytes(name)), np_dtype, count)
        if mmap_path is not None and count:
            return np.memmap(mmap_path, np_dtype, "c", offset, (count,))
        array = np.empty(count, np_dtype)
        self.f.seek(offset)
        if self.f.readinto(memoryview(array).cast("B")) != array.nbytes:
            raise self._failed(name)
        return array
