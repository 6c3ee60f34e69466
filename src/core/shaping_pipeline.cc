#include "core/shaping_pipeline.h"

#include <algorithm>
#include <deque>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "core/command_echo.h"
#include "core/command_line.h"
#include "core/line_prefix.h"
#include "core/redact.h"
#include "core/strings.h"
#include "core/summary_budget.h"
#include "core/task_output.h"
#include "core/text.h"

namespace plugline::core {
namespace {

// Moves `pos` back to the start of a UTF-8 character so a cut never splits one.
size_t Utf8Boundary(std::string_view text, size_t pos) {
  while (pos > 0 && pos < text.size() &&
         (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) {
    --pos;
  }
  return pos;
}

// The first `chars` characters (code points) of `text`.
std::string_view FirstChars(std::string_view text, size_t chars) {
  size_t pos = 0;
  for (size_t seen = 0; pos < text.size() && seen < chars; ++seen) {
    ++pos;
    while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
  }
  return text.substr(0, pos);
}

// Tokens kept aside, when a summary is cut to its budget, for what the rules add after it:
// the raw file's line and the notes about a window.
constexpr uint64_t kBudgetReserveTokens = 60;
// Binary output this long or longer is said, not shown (core/text.h LooksBinary).
constexpr size_t kMinBinaryBytes = 256;

// How confident a shaper must be of an echoed command's output for it to be a part of its own
// (the fallback is 0.1). An output whose lines before the first echo are a tool's, this sure,
// is that tool's: the lines that read like echoes are its own ("+ actual - expected").
constexpr double kPartRecognized = 0.5;
constexpr double kToolBeforeEchoes = 0.8;
// Kept aside for each part when the budget is shared: the parts' tokens counted apart add up to
// a little less than counted together.
constexpr uint64_t kPartSlackTokens = 4;

// The line a failing command shown raw starts with: "pytest: FAILED (exit 1)". Tools whose
// exit 1 is an answer, not a failure (no match, the files differ), say only the code.

std::string OutcomeLine(std::string_view command, int exit_code) {
  // The tool, with its subcommand for those that take one: "go vet", "cargo build", and the
  // script a package manager runs, "npm run build".
  std::string tool = CommandLabel(command);
  if (tool.empty()) tool = "command";
  return StrCat(tool, ": ", FailureText(command, exit_code));
}

// Whether `command` names a file in the folder where `raw_path`, this output's stored copy,
// is: an output stored before, which a summary named ("full output: …/outputs/x.log"), read
// again (`sed -n 200,400p …/outputs/x.log`).
bool ReadsStoredOutput(std::string_view command, std::string_view raw_path) {
  const size_t slash = raw_path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return false;
  const std::string_view dir = raw_path.substr(0, slash + 1);
  for (const std::string& word : CommandWords(command)) {
    if (word.size() > dir.size() && std::string_view(word).starts_with(dir)) return true;
  }
  return false;
}

bool LastLineNames(std::string_view summary, std::string_view path) {
  size_t end = summary.find_last_not_of('\n');
  if (end == std::string_view::npos) return false;
  size_t start = summary.rfind('\n', end);
  start = start == std::string_view::npos ? 0 : start + 1;
  return summary.substr(start, end - start + 1).find(path) != std::string_view::npos;
}

// The lines a summary ends with when it was made from a window or names a capped file:
//   … the output (5.0 GiB, 73,400,320 lines) was larger than the 8.0 MiB shaping window: ...
//   full output (the file holds only its first 256.0 MiB: outputs.max_file_mb caps it at
//   256.0 MiB): /path
// They replace a last line that names the file, which then comes last again.
void AddSizeNotes(const RawOutputLocation& raw, const WindowedOutput* window, ShapeResult* result) {
  std::string& summary = result->summary;
  if (!raw.path.empty() && LastLineNames(summary, raw.path)) {
    size_t end = summary.find_last_not_of('\n');
    size_t start = end == std::string::npos ? std::string::npos : summary.rfind('\n', end);
    summary.resize(start == std::string::npos ? 0 : start + 1);
  }
  if (!summary.empty() && summary.back() != '\n') summary += '\n';
  if (window != nullptr) {
    // The summary is made from part of the output: it is never "the raw output".
    result->render_mode = RenderMode::kSummary;
    StrAppend(&summary, "… the output (", FormatBytes(window->bytes), ", ",
              FormatCount(window->lines), window->lines == 1 ? " line" : " lines",
              ") was larger than the ", FormatBytes(window->window_bytes),
              " shaping window: shaped from its first ", FormatBytes(window->head_bytes),
              ", its last ", FormatBytes(window->tail_bytes), " and ",
              FormatCount(window->middle_lines), window->middle_lines == 1 ? " line" : " lines",
              " of errors and their context from the middle\n");
  }
  if (raw.path.empty()) {
    if (!raw.store_error.empty()) {
      StrAppend(&summary, "… the rest of the output is lost: it could not be stored\n");
    }
  } else if (raw.truncated) {
    StrAppend(&summary, "full output (the file holds only its first ",
              FormatBytes(raw.stored_bytes), ": outputs.max_file_mb caps it at ",
              FormatBytes(raw.max_file_bytes), "): ", raw.path, "\n");
  } else {
    StrAppend(&summary, "full output: ", raw.path, "\n");
  }
  if (!summary.empty() && summary.back() == '\n') summary.pop_back();
}

}  // namespace

std::string MakeSnippet(std::string_view output) {
  if (output.size() <= kSnippetHeadBytes + kSnippetTailBytes) return std::string(output);
  size_t head_end = kSnippetHeadBytes;
  // Prefer to end the head at a newline within the last quarter of the window.
  size_t nl = output.rfind('\n', head_end);
  if (nl != std::string_view::npos && nl >= kSnippetHeadBytes * 3 / 4) head_end = nl;
  head_end = Utf8Boundary(output, head_end);
  size_t tail_start = output.size() - kSnippetTailBytes;
  size_t nl2 = output.find('\n', tail_start);
  if (nl2 != std::string_view::npos && nl2 < tail_start + kSnippetTailBytes / 4) {
    tail_start = nl2 + 1;
  }
  // Forward to a character's start: back would make the tail longer than kSnippetTailBytes.
  while (tail_start < output.size() &&
         (static_cast<unsigned char>(output[tail_start]) & 0xC0) == 0x80) {
    ++tail_start;
  }
  return StrCat(output.substr(0, head_end), "\n", output.substr(tail_start));
}

absl::Status ShaperPipeline::CheckShaper(std::string_view id) const {
  for (const auto& shaper : shapers_) {
    if (shaper->meta().id == id || shaper->meta().name == id) return absl::OkStatus();
  }
  std::vector<std::string> ids;
  for (const auto& shaper : shapers_) ids.push_back(shaper->meta().id);
  return absl::InvalidArgumentError(
      StrCat("unknown shaper '", id, "'; known: ", absl::StrJoin(ids, ", ")));
}

Shaper* ShaperPipeline::Choose(std::string_view command, std::string_view output,
                               std::optional<int> exit_code, double* confidence,
                               ShapeResult* result, ShapeTrace* trace) {
  Shaper* winner = nullptr;
  *confidence = 0;
  const std::string snippet = MakeSnippet(output);
  for (const auto& shaper : shapers_) {
    absl::StatusOr<MatchResult> match = shaper->Match(command, snippet, exit_code);
    if (!match.ok()) {
      // A match() that fails leaves that shaper out; the others still compete.
      if (result != nullptr) {
        result->skipped.push_back(ShapeResult::Skipped{
            shaper->meta().id,
            absl::IsDeadlineExceeded(match.status()) ? "match() timed out" : "match() failed",
            std::string(match.status().message())});
      }
      if (trace != nullptr) trace->match_failed.push_back(shaper->meta().id);
      continue;
    }
    if (!match->matched) continue;
    if (trace != nullptr) trace->matched.push_back(shaper->meta().id);
    double candidate = std::clamp(match->confidence, 0.0, 1.0);
    bool better = winner == nullptr || candidate > *confidence;
    if (!better && candidate == *confidence) {
      const ShaperMeta& a = shaper->meta();
      const ShaperMeta& b = winner->meta();
      better = a.priority > b.priority || (a.priority == b.priority && a.id < b.id);
    }
    if (better) {
      winner = shaper.get();
      *confidence = candidate;
    }
  }
  return winner;
}

std::optional<std::string> ShaperPipeline::ShapeParts(const ShapeRequest& request,
                                                      std::string_view output,
                                                      const TaskOutput* tasks,
                                                      std::string_view raw_path, uint64_t budget,
                                                      std::string* ids, uint64_t* lines_left_out) {
  struct Part {
    EchoedPart echoed;
    Shaper* shaper;
    std::string_view command;
    std::string_view trailer;  // a package manager's lines after its script's, shown as they are
  };
  std::vector<Part> parts;
  size_t recognized = 0;
  // A workspace task runner's output: each task's lines, shaped apart (core/task_output.h);
  // else the commands a script echoed (core/command_echo.h).
  const bool from_tasks = tasks != nullptr;
  std::vector<EchoedPart> echoed;
  std::deque<std::string> trailers;  // package managers' reports, as a summary shows them
  if (from_tasks) {
    if (!IsBlank(tasks->before)) echoed.push_back(EchoedPart{{}, {}, tasks->before});
    for (const TaskPart& task : tasks->tasks) {
      echoed.push_back(EchoedPart{task.header, task.command, task.text});
    }
    if (!IsBlank(tasks->after)) echoed.push_back(EchoedPart{{}, {}, tasks->after});
  } else {
    echoed = SplitAtEchoes(output);
  }
  for (size_t i = 0; i < echoed.size(); ++i) {
    EchoedPart& part = echoed[i];
    // A script a package manager ran (a runner's task, or under its header): its lines, the
    // manager's report of its failure apart.
    std::string_view trailer;
    const std::string_view command = part.command.empty() ? request.command : part.command;
    if ((from_tasks || IsPackageScriptHeader(part.echo)) && !RunsPackageManager(command)) {
      const size_t cut = PackageManagerTrailer(part.text);
      trailer = part.text.substr(cut);
      part.text = part.text.substr(0, cut);
      // (Elided only where the raw output is stored.)
      if (!raw_path.empty()) trailer = trailers.emplace_back(ShownPackageManagerReport(trailer));
    }
    // Only the last command's status is known: the run's. A task's is not.
    const std::optional<int> exit_code =
        i + 1 == echoed.size() && !from_tasks ? request.exit_code : std::nullopt;
    double confidence = 0;
    Shaper* shaper = Choose(command, part.text, exit_code, &confidence, nullptr, nullptr);
    if (shaper == nullptr) return std::nullopt;
    if (from_tasks) {
      parts.push_back(Part{part, shaper, command, trailer});
      continue;
    }
    if (part.command.empty() && confidence >= kToolBeforeEchoes) return std::nullopt;
    if (!part.command.empty() && confidence < kPartRecognized && !parts.empty()) {
      // Not a tool's output plugline knows: the lines of the part before, as they were (a
      // line that only reads like a trace, mocha's "+ actual - expected", stays in its place).
      std::string_view& text = parts.back().echoed.text;
      text = output.substr(static_cast<size_t>(text.data() - output.data()),
                           static_cast<size_t>(part.text.data() - text.data()) + part.text.size());
      parts.back().trailer = trailer;  // (the part before's own is among the lines now)
      continue;
    }
    if (!part.command.empty()) ++recognized;
    parts.push_back(Part{part, shaper, command, trailer});
  }
  // One script that a package manager ran, its header naming the command (`npm test`: "> app@1.0.0
  // test", "> jest"): the output is that command's, npm's lines after it included.
  const bool one_script = parts.size() == 1 && IsOnePartSplit(parts[0].echoed);
  if (!from_tasks && !one_script && (recognized < 2 || parts.size() < 2)) return std::nullopt;
  // Each part's summary: never worse than its lines (a shaper that fails shows them too).
  std::vector<std::string> pieces;
  std::vector<uint64_t> costs;
  std::vector<ShapeContext> contexts;
  std::vector<std::string> nested_ids;  // a task's parts' shapers, when it has parts
  uint64_t overhead = 0;
  size_t parts_failed = 0;  // those whose shaper read a failed run in them
  for (size_t i = 0; i < parts.size(); ++i) {
    const Part& part = parts[i];
    const std::string_view text = part.echoed.text;
    const std::optional<int> exit_code =
        i + 1 == parts.size() && !from_tasks ? request.exit_code : std::nullopt;
    const ShapeContext context{part.command,     exit_code, text.size(),
                               CountLines(text), raw_path,  budget};
    contexts.push_back(context);
    overhead +=
        counter_->Count(part.echoed.echo) + counter_->Count(part.trailer) + kPartSlackTokens;
    if (from_tasks) {
      // A task that runs several commands, each echoed (`npm run lint && npm test`): its own
      // parts, each by its command's shaper.
      std::string task_ids;
      const ShapeRequest task_request{part.command, text, context.exit_code, "", budget};
      if (std::optional<std::string> nested = ShapeParts(task_request, text, nullptr, raw_path,
                                                         budget, &task_ids, lines_left_out)) {
        if (absl::StrContains(nested->substr(0, nested->find('\n')), "FAILED")) ++parts_failed;
        pieces.push_back(*std::move(nested));
        costs.push_back(counter_->Count(pieces.back()));
        nested_ids.push_back(std::move(task_ids));
        continue;
      }
    }
    nested_ids.emplace_back();
    absl::StatusOr<ShapeOutput> shaped = part.shaper->Shape(text, context);
    if (shaped.ok() && shaped->failed) ++parts_failed;
    std::string piece(text);
    uint64_t cost = counter_->Count(text);
    if (shaped.ok() && shaped->render_mode == RenderMode::kSummary &&
        shaped->summary.size() < text.size()) {
      if (const uint64_t summarized = counter_->Count(shaped->summary); summarized < cost) {
        piece = std::move(shaped->summary);
        cost = summarized;
      }
    }
    pieces.push_back(std::move(piece));
    costs.push_back(cost);
  }
  // The run's outcome: its status, or, when that is 0 (a script that goes on after a failing
  // command, an output read through `| head`), the parts that failed.
  const bool failing = request.exit_code && *request.exit_code != 0;
  std::string label = CommandLabel(request.command);
  if (label.empty()) label = "command";
  // A runner's tasks are counted, not the runner's own lines around them.
  const size_t counted = from_tasks ? tasks->tasks.size() : parts.size();
  const std::string_view noun =
      from_tasks ? (counted == 1 ? " task" : " tasks") : (counted == 1 ? " command" : " commands");
  std::string summary;
  if (one_script) {
    // The script's header names its command; the run's outcome is all the line adds.
    summary = failing ? StrCat(OutcomeLine(request.command, *request.exit_code), "\n")
              : parts_failed > 0
                  ? StrCat(label, ": FAILED", request.exit_code ? " (exit 0)" : "", "\n")
                  : StrCat(label, request.exit_code ? ": exit 0" : ": done", "\n");
  } else if (failing) {
    summary = StrCat(OutcomeLine(request.command, *request.exit_code), " — ", counted, noun,
                     ", each shaped below\n");
  } else if (parts_failed > 0) {
    summary = StrCat(label, ": FAILED — ", parts_failed, " of ", counted, noun,
                     " failed, each shaped below", request.exit_code ? " (exit 0)" : "", "\n");
  } else {
    summary = StrCat(label, request.exit_code ? ": exit 0" : ": done", " — ", counted, noun,
                     ", each shaped below\n");
  }
  overhead += counter_->Count(summary);
  // The budget shared among the parts, so that each keeps its own header and what its shaper
  // ranks first: a part that fits its share keeps all of it, and what it leaves goes to the
  // parts after it, smallest first; a larger part is cut to its share by priority.
  std::vector<bool> cut_pieces(parts.size(), false);
  if (budget > 0) {
    std::vector<size_t> order(parts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return costs[a] < costs[b]; });
    uint64_t left = budget > overhead ? budget - overhead : 0;
    for (size_t k = 0; k < order.size(); ++k) {
      const size_t i = order[k];
      const uint64_t share = left / (order.size() - k);
      if (costs[i] > share) {
        // Told its share, the part's shaper spends it by its own priorities first (a list
        // grouped, not cut); what it returns is cut to the share if still over.
        ShapeContext context = contexts[i];
        context.max_tokens = share;
        if (nested_ids[i].empty()) {
          absl::StatusOr<ShapeOutput> again = parts[i].shaper->Shape(parts[i].echoed.text, context);
          if (again.ok() && again->render_mode == RenderMode::kSummary &&
              counter_->Count(again->summary) < costs[i]) {
            pieces[i] = std::move(again->summary);
          }
        }
        BudgetCut cut = FitToBudget(pieces[i], share, 0, *counter_);
        if (cut.cut) {
          pieces[i] = std::move(cut.summary);
          *lines_left_out += cut.lines_left_out;
          cut_pieces[i] = true;
        }
        left -= std::min(left, share);
      } else {
        left -= costs[i];
      }
    }
  }
  // A part's tallies by code name what its cut left out; a part not cut needs none.
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!cut_pieces[i]) pieces[i] = WithoutTallies(pieces[i]);
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    StrAppend(&summary, parts[i].echoed.echo);
    if (!summary.empty() && summary.back() != '\n') summary += '\n';
    StrAppend(&summary, pieces[i]);
    if (!summary.empty() && summary.back() != '\n') summary += '\n';
    StrAppend(&summary, parts[i].trailer);
    if (!summary.empty() && summary.back() != '\n') summary += '\n';
    if (i > 0) *ids += '+';
    StrAppend(ids, nested_ids[i].empty() ? parts[i].shaper->meta().id : nested_ids[i]);
  }
  return summary;
}

absl::StatusOr<ShapeResult> ShaperPipeline::Run(const ShapeRequest& request,
                                                const RawOutputLocation& raw, ShapeTrace* trace,
                                                const WindowedOutput* window) {
  ShapeTrace local_trace;
  if (trace == nullptr) trace = &local_trace;
  ShapeResult result;
  result.raw_path = raw.path;
  if (window != nullptr) {
    result.raw_bytes = window->bytes;
    result.raw_lines = window->lines;
    result.tokens_raw = window->tokens;
    result.shaped_bytes = window->kept_bytes;
  } else {
    result.raw_bytes = request.output.size();
    result.raw_lines = CountLines(request.output);
    result.tokens_raw = counter_->Count(request.output);
    result.shaped_bytes = result.raw_bytes;
  }
  if (!raw.path.empty())
    result.raw_stored_bytes = raw.truncated ? raw.stored_bytes : result.raw_bytes;
  trace->tokens_raw = result.tokens_raw;

  // Shapers, and a raw rendering, see the output as a terminal showed it: no ANSI escapes,
  // redraws applied (the stored file keeps the bytes). Nor does any of them see a secret the
  // command printed (core/redact.h, masked in the stored file too): none reaches a summary.
  std::string normalized, masked, unprefixed, prefix_what;
  auto as_shown = [&](std::string_view text, std::string* plain, std::string* unsecret) {
    std::string_view shown =
        NormalizeTerminalOutput(text, plain) ? std::string_view(*plain) : text;
    if (MaskSecrets(shown, unsecret)) {
      shown = *unsecret;
      result.secrets_masked = true;
    }
    return shown;
  };
  std::string_view output = as_shown(request.output, &normalized, &masked);
  // What is shown when the output is shown as it is; shapers see it without the prefix a CI
  // log or a container's log put before each line (core/line_prefix.h: removed before a
  // carriage return's redraw can take it away from a line), and a summary says so.
  const std::string_view terminal = output;
  std::string unprefixed_normalized, unprefixed_masked;
  if (StripCarrierPrefixes(request.output, &unprefixed, &prefix_what)) {
    output = as_shown(unprefixed, &unprefixed_normalized, &unprefixed_masked);
  }
  // A workspace task runner's: its lines split by the task that printed them, read before a
  // carriage return's redraw inside a task's line can take its prefix away, each then seen as
  // a terminal showed it (a prefix in colours is read once they are gone).
  TaskOutput tasks;
  bool from_tasks = false;
  if (SplitTaskOutput(request.command, request.output, &tasks)) {
    auto shown = [&](std::string* text) {
      std::string plain, unsecret;
      *text = std::string(as_shown(*text, &plain, &unsecret));
    };
    shown(&tasks.before);
    shown(&tasks.after);
    for (TaskPart& task : tasks.tasks) {
      shown(&task.header);
      shown(&task.text);
    }
    from_tasks = true;
  } else {
    from_tasks = SplitTaskOutput(request.command, output, &tasks);
  }
  const std::string prefix_note =
      prefix_what.empty() ? std::string()
                          : StrCat("(each line's prefix, ", prefix_what, ", is left out above)");

  // The summary's budget, and the tokens of it kept for what the rules below add after it.
  const uint64_t budget = request.max_tokens.value_or(0);
  const uint64_t reserve =
      budget == 0 ? 0
                  : counter_->Count(raw.path) + counter_->Count(prefix_note) + kBudgetReserveTokens;

  // The line an output shown as it is starts with: a failing command's outcome, or the first
  // line of a summary whose shaper read a failed run in an output that exited 0 (through a
  // filter: `pytest | tail -20`) or with no status known (set below).
  std::string outcome_first = request.exit_code && *request.exit_code != 0
                                  ? OutcomeLine(request.command, *request.exit_code)
                                  : std::string();
  // The output's lines without their prefixes, that outcome first.
  auto unprefixed_lines = [&] {
    return outcome_first.empty() ? std::string(output) : StrCat(outcome_first, "\n", output);
  };

  // 1. Choose the shaper.
  Shaper* winner = nullptr;
  if (!request.shaper.empty()) {
    for (const auto& shaper : shapers_) {
      if (shaper->meta().id == request.shaper || shaper->meta().name == request.shaper) {
        winner = shaper.get();
      }
    }
    if (winner == nullptr) return CheckShaper(request.shaper);
    result.confidence = 1.0;
  } else {
    winner = Choose(request.command, output, request.exit_code, &result.confidence, &result, trace);
  }
  // An output that echoes the commands it ran: each part by its own command's shaper. Not a
  // file's text (`cat README.md`): the commands a document shows are not a session's.
  std::string part_ids;
  uint64_t part_lines_cut = 0;
  std::optional<std::string> parts;
  // Binary data (an executable, an image `cat` printed): no text to shape or to show. (A few
  // bytes are shown, shaped as any output.)
  const bool binary = request.shaper.empty() && request.output.size() >= kMinBinaryBytes &&
                      LooksBinary(request.output);
  // A file's text, or the data the command was run for: shown whole, cut to the budget in order.
  const bool file_or_data = PrintsSourceFile(request.command) || FetchesData(request.command);
  if (winner != nullptr && request.shaper.empty() && !binary &&
      !ReadsStoredOutput(request.command, raw.path) && !file_or_data) {
    const absl::Time start = absl::Now();
    // The budget its parts share: what the rules below leave to a summary.
    const uint64_t parts_budget =
        budget == 0 || !raw.store_error.empty() ? 0 : budget - std::min(budget, reserve);
    parts = ShapeParts(request, output, from_tasks ? &tasks : nullptr, raw.path, parts_budget,
                       &part_ids, &part_lines_cut);
    if (parts) {
      trace->shape_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
      trace->tokens_shaper_summary = counter_->Count(*parts);
    }
  }

  // 2. Shape.
  auto show_raw = [&](std::optional<std::string> why) {
    result.summary.assign(terminal);
    result.render_mode = RenderMode::kRaw;
    if (why) result.fallback = std::move(why);
  };
  if (binary && !raw.path.empty()) {
    // Said, with its size and first bytes; the bytes are in the stored file.
    std::string first;
    for (unsigned char c : request.output.substr(0, 16)) {
      first += absl::StrFormat("%s%02x", first.empty() ? "" : " ", c);
    }
    const std::string label = CommandLabel(request.command);
    result.summary = StrCat(label.empty() ? "command" : label, ": ",
                            request.exit_code && *request.exit_code != 0
                                ? StrCat(FailureText(request.command, *request.exit_code), ", ")
                                : "",
                            "binary output, ", FormatCount(result.raw_bytes),
                            " bytes, not shown (it starts ", first, ")\n");
    result.fallback = "binary output: not shown";
  } else if (winner == nullptr) {
    show_raw("no shaper matched");
  } else if (parts) {
    result.shaper = part_ids;
    trace->shaper = part_ids;
    trace->command = CommandKey(request.command);
    result.summary = *std::move(parts);
  } else if (request.shaper.empty() && ReadsStoredOutput(request.command, raw.path)) {
    // Shaping a stored output again would hide what its summary left out, the lines the
    // command asks for: they are shown as they are (the budget still holds).
    show_raw("the command reads an output plugline stored: shown as it is");
  } else {
    result.shaper = winner->meta().id;
    // A shaper given a window is told the size of the whole output.
    const uint64_t bytes = window != nullptr ? window->bytes : output.size();
    const uint64_t lines = window != nullptr                        ? window->lines
                           : output.data() == request.output.data() ? result.raw_lines
                                                                    : CountLines(output);
    ShapeContext context{request.command, request.exit_code, bytes, lines, raw.path,
                         request.max_tokens.value_or(0)};
    const absl::Time shape_start = absl::Now();
    absl::StatusOr<ShapeOutput> shaped = winner->Shape(output, context);
    trace->shaper = result.shaper;
    trace->command = CommandKey(request.command);
    trace->shape_ms = absl::ToDoubleMilliseconds(absl::Now() - shape_start);
    trace->failed = !shaped.ok();
    if (shaped.ok() && shaped->failed && !shaped->summary.empty()) {
      // The shaper's first line says more than the exit status alone ("pytest: FAILED — 7
      // failed, 1 error, 37 passed (exit 1)"): it stands first when the output is shown as it
      // is, in place of "pytest: FAILED (exit 1)" when it names that status too.
      std::string first = shaped->summary.substr(0, shaped->summary.find('\n'));
      if (outcome_first.empty() ||
          (first.find("FAILED") != std::string::npos &&
           first.find(StrCat("exit ", *request.exit_code)) != std::string::npos)) {
        outcome_first = std::move(first);
      }
    }
    if (shaped.ok()) {
      // What the shaper itself produced, before the never-worse-than-raw rule: a summary
      // larger than the raw output counts against it.
      if (shaped->render_mode != RenderMode::kRaw) {
        trace->tokens_shaper_summary = counter_->Count(shaped->summary);
      } else {
        trace->tokens_shaper_summary = output.data() == request.output.data()
                                           ? result.tokens_raw
                                           : counter_->Count(output);
      }
    }
    if (!shaped.ok()) {
      // AgentOps' rule: a failed shaper shows the first 500 characters of the raw output.
      std::string_view head = FirstChars(terminal, kFallbackChars);
      result.summary.assign(head);
      if (head.size() < terminal.size()) {
        const uint64_t total = window != nullptr ? window->bytes : terminal.size();
        if (!result.summary.empty() && result.summary.back() != '\n') result.summary += '\n';
        StrAppend(&result.summary, "… ",
                  FormatCount(total - std::min<uint64_t>(total, head.size())), " more bytes (",
                  FormatCount(result.raw_lines), " lines in all)");
      }
      const char* verb =
          absl::IsDeadlineExceeded(shaped.status()) ? "shaper timed out: " : "shaper threw: ";
      result.fallback = StrCat(verb, shaped.status().message());
    } else if (shaped->render_mode == RenderMode::kRaw) {
      // An output whose lines had a carrier's prefix is shown without it (and says so).
      if (prefix_note.empty()) show_raw(std::nullopt);
      else result.summary = unprefixed_lines();
    } else {
      result.summary = std::move(shaped->summary);
    }
  }

  // 3. The rules that hold whatever the shaper did.
  result.max_tokens = budget;
  if (budget > 0 && raw.store_error.empty()) {
    // The budget holds for what any shaper returned, and for an output shown as it is.
    if (result.render_mode == RenderMode::kSummary) {
      BudgetCut cut = FitToBudget(result.summary, budget, reserve, *counter_);
      if (cut.cut) {
        result.summary = std::move(cut.summary);
        result.budget_lines_left_out = cut.lines_left_out;
      } else if (!parts) {
        // (Each part's tallies were kept or dropped with its own cut.)
        result.summary = WithoutTallies(result.summary);
      }
      result.budget_lines_left_out += part_lines_cut;
    } else if (result.tokens_raw + reserve > budget) {
      const std::string shown =
          outcome_first.empty() ? result.summary : StrCat(outcome_first, "\n", result.summary);
      BudgetCut cut = file_or_data ? FitHeadToBudget(shown, budget, reserve, *counter_)
                                   : FitToBudget(shown, budget, reserve, *counter_);
      if (cut.cut) {
        result.summary = std::move(cut.summary);
        result.budget_lines_left_out = cut.lines_left_out;
        result.render_mode = RenderMode::kSummary;
      }
    }
  }
  if (budget == 0 && result.render_mode == RenderMode::kSummary) {
    result.summary = WithoutTallies(result.summary);  // nothing is cut
  }
  if (!raw.store_error.empty()) {
    // Without a stored copy nothing may be elided, whatever the shaper produced: all of the
    // output there is, which for an output larger than the window is the window.
    show_raw(
        window != nullptr
            ? StrCat("raw output could not be stored (", raw.store_error,
                     "); showing all that was kept of it: the output was larger than the "
                     "shaping window")
            : StrCat("raw output could not be stored (", raw.store_error, "); showing it in full"));
  } else if (result.render_mode == RenderMode::kSummary) {
    if (!prefix_note.empty()) {
      // Never worse than the lines without their prefixes either: those, then, a failing
      // command's outcome first.
      std::string lines = unprefixed_lines();
      if (result.summary.size() >= lines.size() ||
          counter_->Count(result.summary) >= counter_->Count(lines)) {
        result.summary = std::move(lines);
      }
      if (!result.summary.empty() && result.summary.back() != '\n') result.summary += '\n';
      StrAppend(&result.summary, prefix_note, "\n");
    }
    if (!raw.path.empty() && !LastLineNames(result.summary, raw.path)) {
      if (!result.summary.empty() && result.summary.back() != '\n') result.summary += '\n';
      StrAppend(&result.summary, "full output: ", raw.path);
    }
    // Never worse than raw, in what the model pays: tokens (a summary with fewer bytes can
    // still cost more). Bytes first, which is free.
    if (result.summary.size() >= terminal.size()) {
      show_raw(std::nullopt);
    } else if (window == nullptr && counter_->Count(result.summary) >= result.tokens_raw) {
      show_raw(std::nullopt);
    }
  }
  // A failing command shown as it is still says so first, one line over raw: what the agent
  // reads first is the outcome.
  if (result.render_mode == RenderMode::kRaw && !outcome_first.empty()) {
    result.summary = StrCat(outcome_first, "\n", result.summary);
  }
  // A window is not the raw output, and a capped file is not the full output: the summary says
  // what it was made from and what the file holds.
  if (window != nullptr || (raw.truncated && result.render_mode == RenderMode::kSummary)) {
    AddSizeNotes(raw, window, &result);
  }

  // Whatever a shaper (a plugin, or the output itself) put in its text, none of it may drive
  // the terminal it is shown on: no colours, cursor moves, titles, links or clipboard writes.
  std::string stripped;
  if (StripControlSequences(result.summary, &stripped)) result.summary = std::move(stripped);
  if (result.fallback && StripControlSequences(*result.fallback, &stripped)) {
    result.fallback = std::move(stripped);
  }
  for (ShapeResult::Skipped& skipped : result.skipped) {
    if (StripControlSequences(skipped.detail, &stripped)) skipped.detail = std::move(stripped);
  }
  result.tokens_summary = window == nullptr && result.summary.size() == request.output.size() &&
                                  result.summary == request.output
                              ? result.tokens_raw
                              : counter_->Count(result.summary);
  result.token_counter = counter_->name();
  return result;
}

}  // namespace plugline::core
