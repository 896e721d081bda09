// html writer: one self-contained review page (see writers.h).
//
// The page is static HTML for what is small (parameters, counts, the two
// SVG charts) and one JSON document in <script type="application/json"> for
// the groups, which the inline script renders in chunks as they scroll into
// view, so 10,000 clusters load without freezing the browser. Every name
// reaches the page through JSON (invalid UTF-8 replaced by U+FFFD) and is
// put in the DOM as text (textContent), never as markup; the JSON has every
// '<' escaped as \u003c so no name can end the script element.

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "base/parallel.h"
#include "base/temp_file.h"
#include "base/utf8.h"
#include "lsh/banding.h"
#include "neardup/quote.h"
#include "neardup/review.h"
#include "neardup/word_diff.h"
#include "neardup/writers.h"
#include "write/sha256.h"

namespace neardup {
namespace {

using Json = nlohmann::ordered_json;

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

// A size as the page's script shows one (size() below): "999 B", "1.5 kB",
// "57.8 MB", "1.2 GB", so that the facts and the members read alike.
std::string PageSize(uint64_t n) {
  const auto d = static_cast<double>(n);
  if (n < 1000) return std::to_string(n) + " B";
  if (d < 1e6) return Fixed(d / 1e3, 1) + " kB";
  if (d < 1e9) return Fixed(d / 1e6, 1) + " MB";
  return Fixed(d / 1e9, 1) + " GB";
}

// The lowest value the histogram shows: the tenth at or below every value
// and the threshold (0.5 for values from 0.53), and at most 0.9.
double HistogramLow(const std::vector<double>& values, double threshold) {
  double lo = threshold;
  for (const double v : values) lo = std::min(lo, v);
  return std::clamp(std::floor(lo * 10 + 1e-9) / 10, 0.0, 0.9);
}

// Histogram of `values` in 20 bins from HistogramLow() up to 1, as SVG, with
// a tick at every tenth. Bar heights are on a log scale (log(1 + count)), so
// that a bar of 1 stays visible next to one of 10,000; the y axis is
// labelled at each power of ten, and each bar's <title> gives its count.
std::string HistogramSvg(const std::vector<double>& values, double threshold) {
  constexpr int kBins = 20;
  constexpr double kLeft = 40, kRight = 20, kBottom = 30, kTop = 10, kW = 600, kH = 200;
  const double lo = HistogramLow(values, threshold);
  const double width = (1 - lo) / kBins;
  std::vector<uint64_t> counts(kBins, 0);
  for (const double v : values) {
    const int bin = static_cast<int>((v - lo) / width);
    counts[static_cast<size_t>(std::clamp(bin, 0, kBins - 1))]++;
  }
  const uint64_t top = std::max<uint64_t>(1, *std::max_element(counts.begin(), counts.end()));
  const double plot_w = kW - kLeft - kRight, plot_h = kH - kBottom - kTop, base = kTop + plot_h;
  const auto height = [&](uint64_t count) {
    return plot_h * std::log1p(static_cast<double>(count)) / std::log1p(static_cast<double>(top));
  };
  const auto x_of = [&](double value) { return kLeft + plot_w * (value - lo) / (1 - lo); };
  std::string svg =
      "<svg class=\"chart\" id=\"histogram\" viewBox=\"0 0 600 200\" role=\"img\" "
      "aria-label=\"histogram of reported similarities\">";
  svg += "<line x1=\"40\" y1=\"170\" x2=\"" + Fixed(kLeft + plot_w, 1) + "\" y2=\"170\" class=\"axis\"/>";
  for (int i = 0; i < kBins; ++i) {
    const uint64_t count = counts[static_cast<size_t>(i)];
    const double h = height(count);
    const double x = kLeft + plot_w * i / kBins;
    svg += "<rect class=\"bar\" x=\"" + Fixed(x + 1, 1) + "\" y=\"" + Fixed(base - h, 1) + "\" width=\"" +
           Fixed(plot_w / kBins - 2, 1) + "\" height=\"" + Fixed(h, 1) + "\"><title>" + Fixed(lo + width * i, 3) + "–" +
           Fixed(lo + width * (i + 1), 3) + ": " + std::to_string(count) + "</title></rect>";
  }
  for (int tenth = static_cast<int>(std::lround(lo * 10)); tenth <= 10; ++tenth) {
    svg += "<text class=\"tick\" x=\"" + Fixed(x_of(tenth / 10.0), 1) + "\" y=\"188\" text-anchor=\"middle\">" +
           Fixed(tenth / 10.0, 1) + "</text>";
  }
  const double tx = x_of(threshold);
  svg += "<line class=\"threshold\" x1=\"" + Fixed(tx, 1) + "\" y1=\"10\" x2=\"" + Fixed(tx, 1) + "\" y2=\"170\"/>";
  for (uint64_t power = 1; power <= top; power *= 10) {
    svg += "<text x=\"36\" y=\"" + Fixed(base - height(power) + 4, 1) + "\" text-anchor=\"end\">" +
           std::to_string(power) + "</text>";
    if (power > top / 10) break;
  }
  svg += "<text x=\"36\" y=\"174\" text-anchor=\"end\">0</text></svg>";
  return svg;
}

// The S-curve 1-(1-s^r)^b over s in [0, 1], threshold marked, as SVG.
std::string SCurveSvg(const Params& p) {
  constexpr double kLeft = 40, kTop = 10, kPlotW = 550, kPlotH = 160;
  std::string points;
  for (int i = 0; i <= 200; ++i) {
    const double s = i / 200.0;
    const double y = CandidateProbability(s, p.bands, p.rows);
    points += Fixed(kLeft + kPlotW * s, 1) + "," + Fixed(kTop + kPlotH * (1 - y), 1) + " ";
  }
  const double tx = kLeft + kPlotW * p.threshold;
  const double ty = kTop + kPlotH * (1 - CandidateProbability(p.threshold, p.bands, p.rows));
  std::string svg =
      "<svg class=\"chart\" id=\"scurve\" viewBox=\"0 0 600 200\" role=\"img\" "
      "aria-label=\"S-curve of the banding\">";
  svg += "<line x1=\"40\" y1=\"170\" x2=\"590\" y2=\"170\" class=\"axis\"/>";
  svg += "<line x1=\"40\" y1=\"10\" x2=\"40\" y2=\"170\" class=\"axis\"/>";
  svg += "<polyline class=\"curve\" points=\"" + points + "\"/>";
  svg += "<line class=\"threshold\" x1=\"" + Fixed(tx, 1) + "\" y1=\"10\" x2=\"" + Fixed(tx, 1) + "\" y2=\"170\"/>";
  svg += "<circle class=\"mark\" cx=\"" + Fixed(tx, 1) + "\" cy=\"" + Fixed(ty, 1) + "\" r=\"3\"/>";
  for (int i = 0; i <= 10; i += 2) {
    svg += "<text x=\"" + Fixed(kLeft + kPlotW * i / 10, 1) + "\" y=\"188\" text-anchor=\"middle\">" +
           Fixed(i / 10.0, 1) + "</text>";
  }
  svg += "<text x=\"36\" y=\"18\" text-anchor=\"end\">1</text><text x=\"36\" y=\"170\" text-anchor=\"end\">0</text>";
  svg += "<text x=\"" + Fixed(tx + 4, 1) + "\" y=\"24\">threshold " + HtmlEscape(FormatScore(p.threshold)) + "</text>";
  svg += "</svg>";
  return svg;
}

const char* kStyle = R"CSS(
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:72rem;padding:1rem 1.5rem;color:#1b1b1b;background:#fff}
h1{font-size:1.5rem;margin:.2rem 0 1rem}h2{font-size:1.15rem;margin:1.6rem 0 .5rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse}td,th{padding:.15rem .6rem;text-align:left;vertical-align:top}
.facts td:first-child{color:#555}.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:1.5rem}.charts figure{margin:0;flex:1 1 20rem}
.chart{width:100%;max-width:36rem;height:auto}.chart text{font-size:11px;fill:#444}
.axis{stroke:#888}.bar{fill:#6a8fc2}.curve{fill:none;stroke:#2b5a9e;stroke-width:2}.threshold{stroke:#c33;stroke-dasharray:4 3}.mark{fill:#c33}
.note{color:#555;font-size:.9rem}.group{border:1px solid #ddd;border-radius:4px;padding:.4rem .8rem;margin:.8rem 0}
.group h3{font-size:1rem;margin:.2rem 0 .4rem}.members td.name{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
tr.kept td{font-weight:600}.tag{font-size:.75rem;border:1px solid #999;border-radius:3px;padding:0 .25rem;margin-left:.4rem;font-weight:normal}.tag.unlike{border-color:#b00;color:#b00}
details{margin:.2rem 0 .4rem 1rem}summary{cursor:pointer;color:#2b5a9e}
.diff{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85rem;white-space:pre-wrap;word-break:break-word;background:#fafafa;border:1px solid #eee;padding:.5rem;max-height:30rem;overflow:auto}
del{background:#fdd;color:#900;text-decoration:line-through}ins{background:#dfd;color:#060;text-decoration:none}
.skip{color:#888;font-style:italic}#more{margin:1rem 0}button{font:inherit}
mark{background:#fe8;color:inherit}.outside{color:#999}.tag.contains{border-color:#2b5a9e;color:#2b5a9e}
)CSS";

const char* kScript = R"JS(
(function () {
  "use strict";
  var body = document.body;
  window.onerror = function (message) {
    body.dataset.errors = (body.dataset.errors || "") + String(message) + "\n";
  };
  var data = JSON.parse(document.getElementById("data").textContent);
  var groups = data.groups;
  var list = document.getElementById("groups");
  var status = document.getElementById("shown");
  var next = 0;
  var CHUNK = 100;
  var openAll = false;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function size(n) {
    if (n < 1000) return n + " B";
    if (n < 1e6) return (n / 1e3).toFixed(1) + " kB";
    if (n < 1e9) return (n / 1e6).toFixed(1) + " MB";
    return (n / 1e9).toFixed(1) + " GB";
  }
  function time(ms) {
    if (!ms) return "";
    return new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC";
  }
  function renderDiff(box, diff) {
    var frag = document.createDocumentFragment();
    for (var i = 0; i < diff.length; i++) {
      var kind = diff[i][0], text = diff[i][1];
      if (i > 0) frag.appendChild(document.createTextNode(" "));
      if (kind === 0) frag.appendChild(document.createTextNode(text));
      else if (kind === 1) frag.appendChild(el("del", null, text));
      else if (kind === 2) frag.appendChild(el("ins", null, text));
      else frag.appendChild(el("span", "skip", "[\u2026 " + text + " unchanged words \u2026]"));
    }
    box.appendChild(frag);
  }
  function renderSpan(box, span) {
    var frag = document.createDocumentFragment();
    for (var i = 0; i < span.length; i++) {
      var kind = span[i][0], text = span[i][1];
      if (i > 0) frag.appendChild(document.createTextNode(" "));
      if (kind === 0) frag.appendChild(el("span", "outside", text));
      else if (kind === 1) frag.appendChild(el("mark", null, text));
      else if (kind === 2) frag.appendChild(el("del", null, text));
      else if (kind === 3) frag.appendChild(el("ins", null, text));
      else if (kind === 4) frag.appendChild(el("span", "skip", "[\u2026 " + text + " words outside the span \u2026]"));
      else frag.appendChild(el("mark", "skip", "[\u2026 " + text + " matched words \u2026]"));
    }
    box.appendChild(frag);
  }
  function first() { return data.mode === "pairs" ? "first" : "kept"; }
  function foldBlock(summary, figures, fill) {
    var det = el("details");
    det.appendChild(el("summary", null, summary));
    if (figures) det.appendChild(el("div", "note", figures));
    var box = el("div", "diff");
    det.appendChild(box);
    var done = false;
    function open() {
      if (done) return;
      done = true;
      fill(box);
    }
    det.addEventListener("toggle", function () { if (det.open) open(); });
    if (openAll) { det.open = true; open(); }
    return det;
  }
  function diffBlock(m) {
    return foldBlock("word diff against the " + first() + " document" + (m.capped ? " (capped)" : ""), null,
                     function (box) {
      if (m.diff.length === 0) box.appendChild(el("span", "skip", "(both empty)"));
      renderDiff(box, m.diff);
    });
  }
  function share(x) { return x === undefined ? "\u2014" : x.toFixed(4); }
  function spanBlock(m) {
    var inside = m.contained === "member";
    return foldBlock((inside ? "this document inside the " + first() + " one" : "the " + first() +
                      " document inside this one") + ": the span it fills in the container, marked" +
                     (m.capped ? " (capped)" : ""),
                     "containment: " + share(m.in_kept) + " of this document in the " + first() + " one, " +
                     share(m.kept_in) + " of the " + first() + " one in this document",
                     function (box) { renderSpan(box, m.span); });
  }
  function row(table, d, kept) {
    var clusters = data.mode !== "pairs";
    var tr = el("tr", kept && clusters ? "kept" : null);
    var name = el("td", "name", d.name);
    if (kept && clusters) name.appendChild(el("span", "tag", "kept"));
    if (d.reference) name.appendChild(el("span", "tag", "reference"));
    if (d.unlike) name.appendChild(el("span", "tag unlike", "not like the kept one: do not remove"));
    if (d.contained === "member") name.appendChild(el("span", "tag contains", "contained in the " + first() + " one"));
    if (d.contained === "kept") name.appendChild(el("span", "tag contains", "contains the " + first() + " one"));
    tr.appendChild(name);
    tr.appendChild(el("td", "num", kept ? "" : (d.similarity === undefined ? "\u2014" : d.similarity.toFixed(4))));
    tr.appendChild(el("td", "num", size(d.size)));
    tr.appendChild(el("td", null, time(d.mtime)));
    table.appendChild(tr);
    if (kept) return;
    var tr2 = el("tr");
    var td = el("td");
    td.colSpan = 4;
    if (d.span) td.appendChild(spanBlock(d));
    else if (d.diff) td.appendChild(diffBlock(d));
    else if (d.note) td.appendChild(el("span", "note", d.note));
    tr2.appendChild(td);
    table.appendChild(tr2);
  }
  function renderGroup(g) {
    var sec = el("section", "group");
    sec.id = "group-" + g.id;
    var n = g.members.length + 1;
    sec.appendChild(el("h3", null, (data.mode === "pairs" ? "Pair " : "Cluster ") + g.id + " \u00b7 " + n + " documents"));
    var table = el("table", "members");
    var head = el("tr");
    ["document", data.similarity, "size", "modified"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    table.appendChild(head);
    row(table, g.keep, true);
    for (var i = 0; i < g.members.length; i++) row(table, g.members[i], false);
    sec.appendChild(table);
    return sec;
  }
  function renderMore(count) {
    var end = Math.min(groups.length, next + count);
    var frag = document.createDocumentFragment();
    for (; next < end; next++) frag.appendChild(renderGroup(groups[next]));
    list.appendChild(frag);
    status.textContent = "Showing " + next + " of " + groups.length + (data.mode === "pairs" ? " pairs." : " clusters.");
    body.dataset.rendered = String(next);
    if (next >= groups.length) document.getElementById("more").hidden = true;
  }
  function renderAll() {
    while (next < groups.length) renderMore(1000);
  }
  document.getElementById("all").addEventListener("click", function () { renderAll(); });
  if (location.hash === "#all") {
    openAll = true;
    renderAll();
  } else {
    renderMore(CHUNK);
    var sentinel = document.getElementById("more");
    if ("IntersectionObserver" in window) {
      new IntersectionObserver(function (entries) {
        if (entries[0].isIntersecting) renderMore(CHUNK);
      }, { rootMargin: "800px" }).observe(sentinel);
    } else {
      window.addEventListener("scroll", function () {
        if (window.innerHeight + window.scrollY > document.body.offsetHeight - 800) renderMore(CHUNK);
      });
    }
  }
  body.dataset.ok = "1";
})();
)JS";

// `data` as compact JSON (invalid UTF-8 replaced) with every '<' escaped as
// \u003c, safe inside a <script> element.
std::string ScriptSafeJson(const Json& data) {
  std::string json = data.dump(-1, ' ', false, Json::error_handler_t::replace);
  size_t lt = json.find('<');
  if (lt == std::string::npos) return json;  // most groups: nothing to escape, nothing copied
  std::string safe;
  safe.reserve(json.size() + 16);
  size_t from = 0;
  for (; lt != std::string::npos; from = lt + 1, lt = json.find('<', from)) {
    safe.append(json, from, lt - from);
    safe += "\\u003c";
  }
  safe.append(json, from, std::string::npos);
  return safe;
}

bool Skipped(FoldedRun::Kind kind) { return kind == FoldedRun::Kind::kSkipped; }
bool Skipped(SpanRun::Kind kind) {
  return kind == SpanRun::Kind::kOutsideSkipped || kind == SpanRun::Kind::kMatchedSkipped;
}

// Whether `text` is well-formed UTF-8 (utf8.h).
bool WellFormed(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = AsciiPrefix(p, n); i < n; i += AsciiPrefix(p + i, n - i)) {
    const Utf8Char c = DecodeUtf8Char(p + i, n - i);
    if (c.status != Utf8Status::kValid) return false;
    i += c.length;
  }
  return true;
}

// Appends `text` as a JSON string exactly as ScriptSafeJson(Json(text))
// writes it (nlohmann's escapes, '<' as \u003c), without building the
// value; ill-formed UTF-8 goes through nlohmann's replacement itself.
void AppendJsonString(std::string_view text, std::string* out) {
  if (!WellFormed(text)) {
    *out += ScriptSafeJson(Json(std::string(text)));
    return;
  }
  out->push_back('"');
  size_t run = 0;  // the first byte not yet appended
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c != '<') continue;
    out->append(text.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\f':
        *out += "\\f";
        break;
      case '\r':
        *out += "\\r";
        break;
      default: {  // '<' and the other control characters, as nlohmann writes them
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        *out += buf;
      }
    }
  }
  out->append(text.data() + run, text.size() - run);
  out->push_back('"');
}

// Appends `"key":`, after a comma unless it opens its object.
void AppendKey(const char* key, bool first, std::string* out) {
  if (!first) out->push_back(',');
  out->push_back('"');
  *out += key;
  *out += "\":";
}

// A score as the page's JSON has it: the number FormatScore() shows, as
// nlohmann writes a double.
std::string ScoreJson(double score) { return Json(std::stod(FormatScore(score))).dump(); }

// Appends a document's facts as object members: name, size, mtime
// (milliseconds, for JavaScript's Date), reference.
void AppendDocFields(const DocEntry& d, std::string* out) {
  AppendKey("name", true, out);
  AppendJsonString(d.name, out);
  AppendKey("size", false, out);
  *out += std::to_string(d.size);
  AppendKey("mtime", false, out);
  *out += std::to_string(d.mtime_ns / 1'000'000);
  if (d.reference) *out += ",\"reference\":true";
}

// Appends runs as JSON [[kind, text], ...]. A folded diff: 0 same, 1
// removed, 2 added, 3 a skipped unchanged stretch (text: its number of
// words). A span view: 0 outside the span, 1 matched, 2 only the
// container's, 3 only the contained document's, 4 and 5 a skipped stretch
// outside the span and matched (text: its number of words).
template <typename Run>
void AppendRuns(const std::vector<Run>& runs, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < runs.size(); ++i) {
    if (i > 0) out->push_back(',');
    const Run& run = runs[i];
    const int kind = static_cast<int>(run.kind);
    *out += '[' + std::to_string(kind) + ',';
    if (Skipped(run.kind)) {
      *out += '"' + std::to_string(run.words) + '"';
    } else {
      AppendJsonString(run.text, out);
    }
    out->push_back(']');
  }
  out->push_back(']');
}

// Appends one member of a group compared with the kept document, as an object.
void AppendMember(const DocEntry& d, const ReviewMember& m, std::string* out) {
  out->push_back('{');
  AppendDocFields(d, out);
  if (m.similarity >= 0) *out += ",\"similarity\":" + ScoreJson(m.similarity);
  if (m.unlike_kept) *out += ",\"unlike\":true";
  // --relation contains|both: which way a member and the kept document
  // contain each other, and how much, when the texts were compared.
  if (m.contained == ReviewMember::Way::kMemberInKept) *out += ",\"contained\":\"member\"";
  if (m.contained == ReviewMember::Way::kKeptInMember) *out += ",\"contained\":\"kept\"";
  if (m.member_in_kept >= 0) *out += ",\"in_kept\":" + ScoreJson(m.member_in_kept);
  if (m.kept_in_member >= 0) *out += ",\"kept_in\":" + ScoreJson(m.kept_in_member);
  if (m.span || m.diff) {
    *out += m.span ? ",\"span\":" : ",\"diff\":";
    if (m.span) {
      AppendRuns(*m.span, out);
    } else {
      AppendRuns(*m.diff, out);
    }
    if (m.capped) *out += ",\"capped\":true";
  } else {
    *out += ",\"note\":";
    AppendJsonString(m.note, out);
  }
  out->push_back('}');
}

// One group of the review as the page's JSON: {"id", "keep", "members"}.
std::string GroupText(const Report& report, const ReviewGroup& group) {
  std::string out = "{\"id\":" + std::to_string(group.id) + ",\"keep\":{";
  AppendDocFields(report.docs[group.keep], &out);
  out += "},\"members\":[";
  for (size_t i = 0; i < group.members.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendMember(report.docs[group.members[i].doc], group.members[i], &out);
  }
  out += "]}";
  return out;
}

// Appends the Parameters and Summary tables of `report` to `page`.
void AppendFactTables(const Report& report, std::string* page_out) {
  std::string& page = *page_out;
  const Params& p = report.params;
  const Stats& s = report.stats;
  const bool pairs_mode = p.mode == Mode::kPairs;
  auto fact = [&page](const std::string& name, const std::string& value) {
    page += "<tr><td>" + HtmlEscape(name) + "</td><td>" + HtmlEscape(value) + "</td></tr>\n";
  };
  page += "<h2>Parameters</h2>\n<table class=\"facts\" id=\"params\">\n";
  fact("threshold", FormatScore(p.threshold));
  fact("shingles", std::string(ToString(p.shingle)) + " " + std::to_string(p.ngram) + "-grams");
  fact("permutations", std::to_string(p.num_perm));
  fact("banding", std::to_string(p.bands) + " bands \u00d7 " + std::to_string(p.rows) + " rows");
  fact("seed", std::to_string(p.seed));
  fact("verify", ToString(p.verify));
  fact("mode", ToString(p.mode));
  if (!pairs_mode) {
    fact("keep", ToString(p.keep));
    fact("cluster by", ToString(p.cluster_by));
  }
  page += "</table>\n<h2>Summary</h2>\n<table class=\"facts\" id=\"summary\">\n";
  fact("documents", std::to_string(s.documents) + " (" + PageSize(s.bytes) + ")");
  fact("empty / skipped / unreadable",
       std::to_string(s.empty) + " / " + std::to_string(s.skipped()) + " / " + std::to_string(s.unreadable));
  if (s.malformed_lines > 0) fact("malformed JSONL lines", std::to_string(s.malformed_lines));
  fact("exact copies", std::to_string(s.exact_duplicates));
  fact("candidate pairs", std::to_string(s.candidates));
  if (pairs_mode) {
    fact("pairs reported", std::to_string(report.pairs.size()));
  } else {
    fact("clusters",
         std::to_string(report.clusters.size()) + " of " + std::to_string(report.clustered()) + " documents");
    fact("removable",
         std::to_string(report.removable.size()) + " documents (" + PageSize(report.removable_bytes()) + ")");
  }
  if (!report.problems.empty()) fact("problems (see the log)", std::to_string(report.problems.size()));
  page += "</table>\n";
}

// Appends the two charts (similarity histogram, S-curve) to `page`;
// `similarity` names what the histogram counts.
void AppendCharts(const Params& p, const std::string& similarity, const std::vector<double>& similarities,
                  std::string* page_out) {
  std::string& page = *page_out;
  page += "<div class=\"charts\">\n<figure><figcaption>Reported similarities (" + HtmlEscape(similarity) +
          "), threshold dashed; bar heights on a log scale</figcaption>\n";
  page += HistogramSvg(similarities, p.threshold);
  page += "</figure>\n<figure><figcaption>Chance of becoming a candidate, 1\u2212(1\u2212s<sup>" +
          std::to_string(p.rows) + "</sup>)<sup>" + std::to_string(p.bands) +
          "</sup>, against Jaccard similarity s</figcaption>\n";
  page += SCurveSvg(p);
  page += "</figure>\n</div>\n";
}

// Appends the groups' heading, the note on word diffs, the groups'
// containers and the opening of the JSON data element to `page`.
void AppendGroupsIntro(const Params& p, const Review& review, std::string* page_out) {
  std::string& page = *page_out;
  const bool pairs_mode = p.mode == Mode::kPairs;
  page += std::string("<h2>") + (pairs_mode ? "Pairs" : "Clusters, largest first") + "</h2>\n<p class=\"note\">";
  if (review.texts_read) {
    page += "Word diffs compare the normalized words (lowercased, punctuation dropped) of the first " +
            std::to_string(review.max_words) +
            (review.texts_proved ? " words of each document, as the exact verification read it in this run"
                                 : " words of each document, read again when this page was written") +
            "; long unchanged stretches are shortened.";
    if (p.verify == VerifyMode::kExact) page += " Only documents in reported groups (all candidates) are read.";
    if (p.relation != Relation::kSimilar) {
      page +=
          " A document contained in the other shows the container's words instead, the span that holds the "
          "contained one marked, the words outside it grey, and its containment both ways.";
    }
  } else {
    page += "No word diffs: the documents were not read again.";
  }
  page +=
      "</p>\n<p id=\"shown\"></p>\n<div id=\"groups\"></div>\n<p id=\"more\"><button id=\"all\" "
      "type=\"button\">Show all</button></p>\n<script type=\"application/json\" id=\"data\">";
}

Status SpillError(const char* what) {
  return Status::IoError("temporary file for the review page in " + ShellQuoted(TempFile::Folder()) + ": " + what +
                         ": " + std::strerror(errno));
}

// Copies the first `size` bytes of the temporary file `file` to `out`.
Status CopySpill(std::FILE* file, uint64_t size, std::ostream& out) {
  if (std::fflush(file) != 0) {
    return SpillError("write");
  }
  std::vector<char> buf(size_t{1} << 20);
  for (uint64_t at = 0; at < size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - at));
    if (!ReadAt(file, at, buf.data(), n)) {
      return SpillError("read");
    }
    out.write(buf.data(), static_cast<std::streamsize>(n));
    at += n;
  }
  return Status::Ok();
}

}  // namespace

// The page's data past HtmlReview's held bytes, in a temporary file.
struct HtmlReview::Spill {
  TempFile file;
  uint64_t size = 0;
};

HtmlReview::HtmlReview(const Report& report, int threads, uint64_t held_bytes)
    : report_(report), threads_(threads), held_bytes_(held_bytes) {}

HtmlReview::~HtmlReview() = default;

Status HtmlReview::Add(std::span<const ReviewGroup> groups) {
  std::vector<std::string> rendered(groups.size());
  ParallelFor(Workers{.threads = Workers::Resolve(threads_), .tick = {}, .cancel = nullptr}, groups.size(),
              [&](int, size_t i) { rendered[i] = GroupText(report_, groups[i]); });
  size_t bytes = 0;
  for (const std::string& r : rendered) bytes += r.size() + 1;
  std::string chunk;
  chunk.reserve(bytes);
  for (size_t i = 0; i < groups.size(); ++i) {
    if (any_ || i > 0) chunk += ',';
    chunk += rendered[i];
    for (const ReviewMember& m : groups[i].members) {
      if (m.similarity >= 0) similarities_.push_back(m.similarity);
    }
  }
  any_ = any_ || !groups.empty();
  rendered = {};
  if (spill_ == nullptr && held_ + chunk.size() <= held_bytes_) {
    held_ += chunk.size();
    data_.push_back(std::move(chunk));
    return Status::Ok();
  }
  if (spill_ == nullptr) {
    Result<TempFile> temp = TempFile::Create("the review page");
    if (!temp.ok()) return temp.status();
    spill_ = std::make_unique<Spill>();
    spill_->file = std::move(*temp);
  }
  if (std::fwrite(chunk.data(), 1, chunk.size(), spill_->file.get()) != chunk.size()) {
    return SpillError("write");
  }
  spill_->size += chunk.size();
  return Status::Ok();
}

Status HtmlReview::Write(const Review& facts, std::ostream& out) const {
  const Params& p = report_.params;
  const bool pairs_mode = p.mode == Mode::kPairs;
  const bool jaccard_pairs = p.verify == VerifyMode::kExact;
  const std::string similarity = pairs_mode ? (jaccard_pairs ? "Jaccard" : "estimate") : "Jaccard to kept";

  std::string page;
  page +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src '" +
      CspHashSource(kStyle) + "'; script-src '" + CspHashSource(kScript) +
      "'\">\n<title>neardup review</title>\n<style>";
  page += kStyle;
  page += "</style>\n</head>\n<body>\n<h1>neardup review: ";
  page += pairs_mode ? std::to_string(report_.pairs.size()) + " pairs"
                     : std::to_string(report_.clusters.size()) + " clusters";
  page += pairs_mode ? "</h1>\n<p class=\"note\">Each pair below shows its first document, then the second with "
                       "its similarity and its word diff against the first.</p>\n"
                     : "</h1>\n<p class=\"note\">Before deleting anything, check each cluster below. The document "
                       "marked <em>kept</em> is the one the <code>--keep</code> rule keeps; the others are its "
                       "near-duplicates, most similar first.</p>\n";
  AppendFactTables(report_, &page);
  AppendCharts(p, similarity, similarities_, &page);
  AppendGroupsIntro(p, facts, &page);
  // The data element: {"mode":...,"similarity":...,"groups":[...]}, as one
  // object with its keys in that order would dump.
  page += "{\"mode\":" + ScriptSafeJson(Json(pairs_mode ? "pairs" : "clusters")) +
          ",\"similarity\":" + ScriptSafeJson(Json(similarity)) + ",\"groups\":[";
  out.write(page.data(), static_cast<std::streamsize>(page.size()));
  for (const std::string& chunk : data_) out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  if (spill_ != nullptr) {
    if (Status s = CopySpill(spill_->file.get(), spill_->size, out); !s.ok()) return s;
  }
  page = "]}</script>\n<script>";
  page += kScript;
  page += "</script>\n</body>\n</html>\n";
  out.write(page.data(), static_cast<std::streamsize>(page.size()));
  return Status::Ok();
}

void WriteHtml(const Report& report, const Review& review, std::ostream& out) {
  // Held whole (the review is in memory already): nothing can fail.
  HtmlReview page(report, 1, UINT64_MAX);
  Status s = page.Add(review.groups);
  if (s.ok()) s = page.Write(review, out);
  assert(s.ok());
}

}  // namespace neardup
