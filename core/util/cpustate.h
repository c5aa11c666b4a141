#pragma once

namespace rw {

// Call first in main(), before any QHash is used.
//
// Qt 6.4's string hash with a random seed (qHashBits' AES path, taken on
// CPUs with VAES) returns with the upper halves of the AVX registers dirty:
// it leaves out `vzeroupper`. Until something clears them, every SSE
// instruction pays the transition penalty, and SQLite's copies of values
// (sqlite3VdbeMemShallowCopy, memmove) run about 1.5 times slower: staging
// 1M rows took 3.9 s in any process that had hashed one string, 2.5 s in
// one that had not (same library, same statement, same VDBE program). A
// fixed hash seed keeps Qt off that path. What it gives up, protection of
// Qt's hash tables against keys chosen to collide, guards services that
// hash what strangers send; Rewind hashes its own workspace's names.
void avoidDirtyUpperRegisters();

} // namespace rw
