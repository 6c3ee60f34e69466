#include "cli/stats_report.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::cli {
namespace {

std::string Signed(double n) {
  std::string formatted = core::FormatCount(static_cast<uint64_t>(std::llround(std::fabs(n))));
  return n < 0 ? "-" + formatted : formatted;
}

struct Shaper {
  std::string id;
  double matches = 0, shapes = 0, fails = 0, saved = 0, ms_total = 0, average_ms = 0;
};

std::vector<Shaper> Shapers(const Stats& stats) {
  std::vector<Shaper> out;
  for (const ShaperStats& s : stats.shapers) {
    Shaper row;
    row.id = s.id;
    row.matches = static_cast<double>(s.match_count);
    row.shapes = static_cast<double>(s.shape_count);
    row.fails = static_cast<double>(s.fail_count);
    row.saved = static_cast<double>(s.tokens_saved);
    row.ms_total = s.shape_ms_total;
    row.average_ms = s.average_shape_ms;
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Shaper& a, const Shaper& b) { return a.saved > b.saved; });
  return out;
}

struct Command {
  std::string key, shaper;
  double shapes = 0, raw = 0, saved = 0;
};

std::vector<Command> Commands(const Stats& stats, size_t limit) {
  std::vector<Command> out;
  for (const CommandStats& c : stats.commands) {
    out.push_back({c.command, c.shaper, static_cast<double>(c.shapes),
                   static_cast<double>(c.tokens_raw), static_cast<double>(c.tokens_saved)});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Command& a, const Command& b) { return a.saved > b.saved; });
  if (out.size() > limit) out.resize(limit);
  return out;
}

// Tokens saved per day, oldest first, the days without shapings filled in with zero.
std::vector<std::pair<std::string, double>> Days(const Stats& stats) {
  std::vector<std::pair<std::string, double>> out;
  std::vector<std::pair<std::string, double>> present;
  for (const DailyStats& day : stats.daily) {
    double saved = 0;
    for (const DailyShaperStats& bucket : day.shapers) saved += static_cast<double>(bucket.tokens_saved);
    present.emplace_back(day.date, saved);
  }
  std::sort(present.begin(), present.end());
  if (present.empty()) return out;
  absl::CivilDay day, last;
  if (!absl::ParseCivilTime(present.front().first, &day) ||
      !absl::ParseCivilTime(present.back().first, &last)) {
    return present;
  }
  size_t next = 0;
  for (; day <= last && out.size() < 400; ++day) {
    const std::string key = absl::FormatCivilTime(day);
    double saved = 0;
    if (next < present.size() && present[next].first == key) saved = present[next++].second;
    out.emplace_back(key, saved);
  }
  return out;
}

std::string Html(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

constexpr int kWidth = 760;
constexpr char kBlue[] = "#2b6cb0";
constexpr char kGreen[] = "#2f855a";
constexpr char kGrey[] = "#a0aec0";

// Horizontal bars, one row per label (each row may hold several series).
struct Series {
  std::string name;
  const char* color;
  std::vector<double> values;
};
std::string HorizontalBars(std::string_view id, const std::vector<std::string>& labels,
                           const std::vector<Series>& series, std::string_view unit) {
  constexpr int kLabel = 170, kValue = 90, kBar = 14, kGap = 10;
  const int per_row = static_cast<int>(series.size()) * kBar + kGap;
  const int height = std::max<int>(1, static_cast<int>(labels.size())) * per_row + 10;
  double max = 0;
  for (const Series& s : series) {
    for (double v : s.values) max = std::max(max, std::fabs(v));
  }
  const double scale = max > 0 ? (kWidth - kLabel - kValue) / max : 0;
  std::string svg = absl::StrFormat(
      R"(<svg id="%s" class="chart" role="img" width="%d" height="%d" viewBox="0 0 %d %d">)",
      std::string(id), kWidth, height, kWidth, height);
  for (size_t i = 0; i < labels.size(); ++i) {
    const int top = static_cast<int>(i) * per_row + 5;
    StrAppend(&svg, absl::StrFormat(R"(<text x="%d" y="%d" text-anchor="end">%s</text>)",
                                    kLabel - 8, top + kBar - 2, Html(labels[i])));
    for (size_t k = 0; k < series.size(); ++k) {
      const double v = series[k].values[i];
      const int y = top + static_cast<int>(k) * kBar;
      const double w = std::max(1.0, std::fabs(v) * scale);
      const std::string shown = unit == "ms" ? absl::StrFormat("%.2f ms", v) : Signed(v);
      StrAppend(&svg, absl::StrFormat(
                          R"(<rect class="bar" x="%d" y="%d" width="%.1f" height="%d" fill="%s" )"
                          R"(data-label="%s" data-series="%s" data-value="%g"><title>%s — %s: %s</title></rect>)",
                          kLabel, y, w, kBar - 2, v < 0 ? "#c53030" : series[k].color,
                          Html(labels[i]), Html(series[k].name), v, Html(labels[i]),
                          Html(series[k].name), shown));
      StrAppend(&svg, absl::StrFormat(R"(<text x="%.1f" y="%d" class="value">%s</text>)",
                                      kLabel + w + 6, y + kBar - 3, shown));
    }
  }
  svg += "</svg>";
  return svg;
}

std::string DailyBars(const std::vector<std::pair<std::string, double>>& days) {
  constexpr int kHeight = 220, kLeft = 70, kBottom = 30, kTop = 10;
  double max = 0;
  for (const auto& [day, saved] : days) max = std::max(max, saved);
  const int n = std::max<int>(1, static_cast<int>(days.size()));
  const double slot = static_cast<double>(kWidth - kLeft - 10) / n;
  const double bar = std::clamp(slot * 0.8, 1.0, 28.0);
  const double scale = max > 0 ? (kHeight - kBottom - kTop) / max : 0;
  std::string svg = absl::StrFormat(
      R"(<svg id="daily" class="chart" role="img" width="%d" height="%d" viewBox="0 0 %d %d">)",
      kWidth, kHeight, kWidth, kHeight);
  StrAppend(&svg, absl::StrFormat(R"(<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>)", kLeft,
                                  kHeight - kBottom, kWidth - 10, kHeight - kBottom, kGrey));
  StrAppend(&svg, absl::StrFormat(R"(<text x="%d" y="%d" text-anchor="end">%s</text>)", kLeft - 6,
                                  kTop + 10, Signed(max)));
  StrAppend(&svg, absl::StrFormat(R"(<text x="%d" y="%d" text-anchor="end">0</text>)", kLeft - 6,
                                  kHeight - kBottom));
  for (size_t i = 0; i < days.size(); ++i) {
    const auto& [day, saved] = days[i];
    const double h = std::max(saved > 0 ? 1.0 : 0.0, std::max(0.0, saved) * scale);
    const double x = kLeft + static_cast<double>(i) * slot + (slot - bar) / 2;
    StrAppend(&svg, absl::StrFormat(
                        R"(<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" )"
                        R"(data-label="%s" data-value="%g"><title>%s: %s tokens saved</title></rect>)",
                        x, kHeight - kBottom - h, bar, h, kBlue, day, saved, day, Signed(saved)));
  }
  if (!days.empty()) {
    StrAppend(&svg, absl::StrFormat(R"(<text x="%d" y="%d">%s</text>)", kLeft, kHeight - 8,
                                    days.front().first));
    StrAppend(&svg, absl::StrFormat(R"(<text x="%d" y="%d" text-anchor="end">%s</text>)",
                                    kWidth - 10, kHeight - 8, days.back().first));
  }
  svg += "</svg>";
  return svg;
}

}  // namespace

std::string StatsTable(const Stats& stats) {
  std::vector<Shaper> shapers = Shapers(stats);
  // The first column as wide as the longest id (an output shaped in parts is counted under
  // its shapers joined by '+').
  int width = 22;
  for (const Shaper& s : shapers) {
    width = std::max(width, static_cast<int>(core::EscapeControl(s.id).size()));
  }
  constexpr char kRow[] = "%-*s %8s %8s %6s %14s %8s\n";
  std::string out = absl::StrFormat(kRow, width, "plugin", "matches", "shapes", "fails",
                                    "tokens saved", "avg ms");
  Shaper total;
  for (const Shaper& s : shapers) {
    StrAppend(&out, absl::StrFormat(kRow, width, core::EscapeControl(s.id), Signed(s.matches),
                                    Signed(s.shapes), Signed(s.fails), Signed(s.saved),
                                    absl::StrFormat("%.2f", s.average_ms)));
    total.matches += s.matches;
    total.shapes += s.shapes;
    total.fails += s.fails;
    total.saved += s.saved;
    total.ms_total += s.ms_total;
  }
  const double shaped = total.shapes + total.fails;
  StrAppend(&out, absl::StrFormat(kRow, width, "total", Signed(total.matches), Signed(total.shapes),
                                  Signed(total.fails), Signed(total.saved),
                                  absl::StrFormat("%.2f", shaped > 0 ? total.ms_total / shaped : 0)));
  std::vector<Command> commands = Commands(stats, 10);
  if (!commands.empty()) {
    out += "\ncommands that saved the most:\n";
    for (const Command& c : commands) {
      const double share = c.raw > 0 ? 100.0 * c.saved / c.raw : 0;
      StrAppend(&out, absl::StrFormat("  %-24s %6s runs %14s tokens saved (%.0f%%)  %s\n",
                                      core::EscapeControl(c.key), Signed(c.shapes), Signed(c.saved),
                                      share, core::EscapeControl(c.shaper)));
    }
  }
  return out;
}

std::string StatsHtml(const Stats& stats, const std::string& home, absl::Time now) {
  std::vector<Shaper> shapers = Shapers(stats);
  std::vector<std::string> labels;
  Series saved{"tokens saved", kBlue, {}}, matches{"matches", kGrey, {}},
      shapes{"shapes", kGreen, {}}, ms{"average shape time", kBlue, {}};
  double total_saved = 0, total_shapes = 0, total_raw = 0;
  for (const Shaper& s : shapers) {
    labels.push_back(s.id);
    saved.values.push_back(s.saved);
    matches.values.push_back(s.matches);
    shapes.values.push_back(s.shapes);
    ms.values.push_back(s.average_ms);
    total_saved += s.saved;
    total_shapes += s.shapes;
  }
  std::vector<std::pair<std::string, double>> days = Days(stats);
  for (const DailyStats& day : stats.daily) {
    for (const DailyShaperStats& bucket : day.shapers) total_raw += static_cast<double>(bucket.tokens_raw);
  }
  std::string page = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>plugline statistics</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; color: #1a202c; margin: 24px auto; max-width: 800px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.meta { color: #718096; } .cards { display: flex; gap: 12px; margin-top: 16px; }
.card { flex: 1; border: 1px solid #e2e8f0; border-radius: 6px; padding: 10px 12px; }
.card b { display: block; font-size: 20px; } svg text { font-size: 12px; fill: #2d3748; }
svg text.value { fill: #4a5568; } table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 4px 8px; border-bottom: 1px solid #edf2f7; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; }
.empty { color: #718096; font-style: italic; }
</style></head><body>
)";
  StrAppend(&page, "<h1>plugline statistics</h1>\n<div class=\"meta\">", Html(home), " — made ",
            absl::FormatTime("%Y-%m-%d %H:%M UTC", now, absl::UTCTimeZone()), "</div>\n");
  StrAppend(&page, "<div class=\"cards\"><div class=\"card\"><b id=\"total-saved\">",
            Signed(total_saved), "</b>tokens saved</div><div class=\"card\"><b>",
            Signed(total_shapes), "</b>outputs shaped</div><div class=\"card\"><b>",
            total_raw > 0 ? absl::StrFormat("%.1f%%", 100.0 * total_saved / total_raw) : "-",
            "</b>of the raw tokens saved</div></div>\n");
  if (shapers.empty()) {
    page += "<p class=\"empty\">No statistics yet: nothing has been shaped with this home.</p>\n";
  } else {
    page += "<h2>Tokens saved per day</h2>\n" + DailyBars(days) + "\n";
    page += "<h2>Tokens saved by plugin</h2>\n" + HorizontalBars("saved", labels, {saved}, "") + "\n";
    StrAppend(&page, "<h2>Matches and shapes by plugin</h2>\n<div class=\"legend\"><span style=\"background:",
              kGrey, "\"></span>matches (its match() recognised the output)<span style=\"background:",
              kGreen, "\"></span>shapes (it won and shaped)</div>\n",
              HorizontalBars("matches", labels, {matches, shapes}, ""), "\n");
    page += "<h2>Average shape time</h2>\n" + HorizontalBars("time", labels, {ms}, "ms") + "\n";
  }
  std::vector<Command> commands = Commands(stats, 20);
  page += "<h2>Commands that saved the most</h2>\n";
  if (commands.empty()) {
    page += "<p class=\"empty\">No commands recorded yet.</p>\n";
  } else {
    page += "<table id=\"commands\"><tr><th>command</th><th class=\"n\">runs</th><th class=\"n\">tokens "
            "saved</th><th class=\"n\">of raw</th><th>shaper</th></tr>\n";
    for (const Command& c : commands) {
      StrAppend(&page, "<tr><td>", Html(c.key), "</td><td class=\"n\">", Signed(c.shapes),
                "</td><td class=\"n\">", Signed(c.saved), "</td><td class=\"n\">",
                c.raw > 0 ? absl::StrFormat("%.0f%%", 100.0 * c.saved / c.raw) : "-",
                "</td><td>", Html(c.shaper), "</td></tr>\n");
    }
    page += "</table>\n";
  }
  page += "</body></html>\n";
  return page;
}

}  // namespace plugline::cli
