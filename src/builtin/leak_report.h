// A memory checker's leak report (LeakSanitizer's, valgrind's --leak-check=full), read by the
// generic shaper: many leaks, each a block of a heading and the frames that allocated it.
#ifndef PLUGLINE_BUILTIN_LEAK_REPORT_H_
#define PLUGLINE_BUILTIN_LEAK_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "builtin/common.h"

namespace plugline::builtin {

// Leaks shown in full, of each kind; the others are listed.
inline constexpr size_t kLeaksInFull = 5;

// When `lines` hold more than kLeaksInFull + 2 leak blocks — LeakSanitizer's "Direct leak of 200
// byte(s) in 1 object(s) allocated from:" or "Indirect leak of …", valgrind's "==42== 200 bytes
// in 1 blocks are definitely lost in loss record 200 of 200" (indirectly, possibly lost, still
// reachable), each with the frames under it —: the summary, written to `out`. Headed
// `<tool>: <note>, 200 leaks (195 direct, 5 indirect), 1,205 lines`; the first kLeaksInFull
// blocks of each kind with their frames in the program's code (those of the allocator, the C
// library and the system's libraries counted); every other block listed by the first such frame,
// its function and what it lost, where the first of them was (with that frame's caller when
// others start at the same frame: a helper that allocates for many): "… 195 more direct leaks
// at: /src/leaks.c:197:66 alloc_site_194 (195 byte(s)); /src/c.c:15:13 copy /src/c.c:33:56
// parse_user (4 byte(s)); …"; the lines that are no leak as printed,
// a run of more than 20 by its first and last 10 and the lines between that read like trouble
// (valgrind's "Invalid read of size 4") with their frames in the program's code. Nullopt for
// fewer leaks: shaped as any output.
std::optional<std::string> ShapeLeakReport(const std::vector<std::string_view>& lines,
                                           std::string_view tool, std::string_view note,
                                           uint64_t total_lines, SummaryWriter& out);

}  // namespace plugline::builtin

#endif  // PLUGLINE_BUILTIN_LEAK_REPORT_H_
