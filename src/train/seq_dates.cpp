// See seq_dates.h.
#include "train/seq_dates.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace tfp::train {

namespace {

const char* const kMonths[12] = {"January", "February", "March",     "April",   "May",      "June",
                                 "July",    "August",   "September", "October", "November", "December"};
const char* const kWeekdays[7] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

std::string two(int n) { return (n < 10 ? "0" : "") + std::to_string(n); }
std::string first3(const char* s) { return std::string(s, 3); }

// 1st 2nd 3rd 4th … 11th 12th 13th … 21st 22nd 23rd … 31st.
const char* ordinal_suffix(int n) {
  if (n % 100 >= 11 && n % 100 <= 13) return "th";
  switch (n % 10) {
    case 1: return "st";
    case 2: return "nd";
    case 3: return "rd";
    default: return "th";
  }
}

std::string lower_ascii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// UTF-8 text split into code points (each a string of 1..4 bytes).
std::vector<std::string> code_points(const std::string& text) {
  std::vector<std::string> out;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) == 0x80 && !out.empty()) out.back() += c;
    else out.emplace_back(1, c);
  }
  return out;
}

uint64_t hash_day(int64_t day, uint64_t seed) {
  Rng mix(static_cast<uint64_t>(day) * 0x9E3779B97F4A7C15ull ^ (seed + 0x5DA7E5ull));
  return mix.next_u64();
}

}  // namespace

const char* date_form_name(DateForm f) {
  static const char* const names[kDateForms] = {
      "day_month_year", "day_mon_year",  "month_day_year", "month_ordinal_year", "mon_day_year", "the_ordinal_of_month",
      "weekday_month_day", "wkd_day_month", "chinese",     "slash_dmy_short",    "slash_dmy",    "dot_dmy"};
  return names[static_cast<int>(f)];
}

// Howard Hinnant's days_from_civil / civil_from_days (public domain algorithms).
int64_t days_from_date(const Date& d) {
  const int64_t y = d.year - (d.month <= 2);
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t mp = (d.month + 9) % 12;
  const int64_t doy = (153 * mp + 2) / 5 + d.day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

Date date_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  Date d;
  d.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  d.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  d.year = static_cast<int>(yoe + era * 400 + (d.month <= 2));
  return d;
}

bool valid_date(const Date& d) {
  if (d.month < 1 || d.month > 12 || d.day < 1) return false;
  static const int len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (d.year % 4 == 0 && d.year % 100 != 0) || d.year % 400 == 0;
  return d.day <= len[d.month - 1] + (d.month == 2 && leap);
}

int weekday(const Date& d) {
  // 1970-01-01 was a Thursday (3 with Monday = 0).
  const int64_t z = days_from_date(d);
  return static_cast<int>(((z % 7) + 7 + 3) % 7);
}

std::string iso_date(const Date& d) { return std::to_string(d.year) + "-" + two(d.month) + "-" + two(d.day); }

std::string write_date(const Date& d, DateForm form, DateCase letter_case) {
  TFP_CHECK(valid_date(d), "write_date: ", d.year, "-", d.month, "-", d.day, " is not a date");
  TFP_CHECK(d.year >= DatesTask::kFirstYear && d.year <= DatesTask::kLastYear, "write_date: year ", d.year,
            " is outside ", DatesTask::kFirstYear, "..", DatesTask::kLastYear);
  const std::string D = std::to_string(d.day), Y = std::to_string(d.year);
  const std::string month = kMonths[d.month - 1], mon = first3(kMonths[d.month - 1]);
  const std::string wd = kWeekdays[weekday(d)];
  const std::string ord = D + ordinal_suffix(d.day);
  std::string s;
  switch (form) {
    case DateForm::day_month_year: s = D + " " + month + " " + Y; break;
    case DateForm::day_mon_year: s = D + " " + mon + " " + Y; break;
    case DateForm::month_day_year: s = month + " " + D + ", " + Y; break;
    case DateForm::month_ordinal_year: s = month + " " + ord + ", " + Y; break;
    case DateForm::mon_day_year: s = mon + " " + D + ", " + Y; break;
    case DateForm::the_ordinal_of_month: s = "the " + ord + " of " + month + " " + Y; break;
    case DateForm::weekday_month_day: s = wd + ", " + month + " " + D + ", " + Y; break;
    case DateForm::wkd_day_month: s = first3(wd.c_str()) + " " + D + " " + month + " " + Y; break;
    case DateForm::chinese: s = Y + "年" + std::to_string(d.month) + "月" + D + "日"; break;
    case DateForm::slash_dmy_short: s = two(d.day) + "/" + two(d.month) + "/" + two(d.year % 100); break;
    case DateForm::slash_dmy: s = two(d.day) + "/" + two(d.month) + "/" + Y; break;
    case DateForm::dot_dmy: s = D + "." + std::to_string(d.month) + "." + Y; break;
  }
  if (letter_case == DateCase::lower) s = lower_ascii(s);
  if (letter_case == DateCase::upper)
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

Date parse_written_date(const std::string& text) {
  // Pieces: runs of digits, runs of letters, and single separators.
  std::vector<std::string> pieces;
  for (const std::string& cp : code_points(text)) {
    const unsigned char c = static_cast<unsigned char>(cp[0]);
    const int kind = cp.size() > 1 ? 3 : std::isdigit(c) ? 1 : std::isalpha(c) ? 2 : 0;
    const bool extend = !pieces.empty() && kind != 0 && kind != 3 &&
                        ((kind == 1 && std::isdigit(static_cast<unsigned char>(pieces.back()[0]))) ||
                         (kind == 2 && std::isalpha(static_cast<unsigned char>(pieces.back()[0]))));
    if (extend) pieces.back() += cp;
    else pieces.push_back(cp);  // a space ends a run (and is then ignored as a separator)
  }
  std::vector<int> nums;
  std::vector<size_t> num_digits;
  int month = 0, wd = -1;
  std::string seps, suffix;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string& p = pieces[i];
    const unsigned char c = static_cast<unsigned char>(p[0]);
    if (std::isdigit(c)) {
      TFP_CHECK(p.size() <= 4, "parse_written_date: number \"", p, "\" in \"", text, "\"");
      nums.push_back(std::stoi(p));
      num_digits.push_back(p.size());
      continue;
    }
    if (!std::isalpha(c)) {
      seps += p == "年" ? "Y" : p == "月" ? "M" : p == "日" ? "D" : p;
      continue;
    }
    const std::string w = lower_ascii(p);
    bool known = w == "the" || w == "of";
    if (!known && (w == "st" || w == "nd" || w == "rd" || w == "th") && !nums.empty() && i > 0 &&
        std::isdigit(static_cast<unsigned char>(pieces[i - 1][0]))) {
      TFP_CHECK(w == ordinal_suffix(nums.back()), "parse_written_date: \"", nums.back(), w, "\" in \"", text, "\"");
      known = true;
    }
    for (int m = 0; m < 12 && !known; ++m)
      if (w == lower_ascii(kMonths[m]) || w == lower_ascii(first3(kMonths[m]))) month = m + 1, known = true;
    for (int k = 0; k < 7 && !known; ++k)
      if (w == lower_ascii(kWeekdays[k]) || w == lower_ascii(first3(kWeekdays[k]))) wd = k, known = true;
    TFP_CHECK(known, "parse_written_date: unknown word \"", p, "\" in \"", text, "\"");
  }
  Date d;
  if (month) {  // a month word: the 4-digit number is the year, the other the day
    TFP_CHECK(nums.size() == 2, "parse_written_date: expected a day and a year in \"", text, "\"");
    const int yi = num_digits[0] == 4 ? 0 : 1;
    d = {nums[yi], month, nums[1 - yi]};
  } else {
    TFP_CHECK(nums.size() == 3, "parse_written_date: expected three numbers in \"", text, "\"");
    if (seps.find('Y') != std::string::npos) {
      d = {nums[0], nums[1], nums[2]};
    } else {  // day/month/year or day.month.year
      int y = nums[2];
      if (num_digits[2] == 2) y += y >= 50 ? 1900 : 2000;
      d = {y, nums[1], nums[0]};
    }
  }
  TFP_CHECK(valid_date(d), "parse_written_date: \"", text, "\" is not a valid date");
  TFP_CHECK(wd < 0 || wd == weekday(d), "parse_written_date: wrong weekday in \"", text, "\"");
  return d;
}

const std::vector<std::string>& DatesTask::vocab() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (char c : std::string("_#> -,/.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
      out.emplace_back(1, c);
    out.push_back("年");
    out.push_back("月");
    out.push_back("日");
    return out;
  }();
  return v;
}

std::vector<int> DatesTask::encode_text(const std::string& text) {
  std::vector<int> ids;
  const std::vector<std::string>& v = vocab();
  for (const std::string& cp : code_points(text)) {
    const auto it = std::find(v.begin(), v.end(), cp);
    TFP_CHECK(it != v.end(), "dates task: character '", cp, "' is not in the vocabulary");
    ids.push_back(static_cast<int>(it - v.begin()));
  }
  return ids;
}

std::string DatesTask::decode_ids(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) {
    if (id == kEnd) break;
    TFP_CHECK(id >= 0 && id < vocab_size(), "dates task: token id ", id, " outside the vocabulary");
    s += vocab()[static_cast<size_t>(id)];
  }
  return s;
}

bool DatesTask::is_held_out(const Date& d) const { return hash_day(days_from_date(d), seed_) % 10 == 0; }

DateExample DatesTask::sample(Rng& rng, bool held_out) const {
  const int64_t first = days_from_date({kFirstYear, 1, 1}), last = days_from_date({kLastYear, 12, 31});
  for (;;) {
    const Date d = date_from_days(first + static_cast<int64_t>(rng.below(static_cast<uint64_t>(last - first + 1))));
    if (is_held_out(d) != held_out) continue;
    const DateForm form = static_cast<DateForm>(rng.below(kDateForms));
    const int c = rng.below(8);
    const DateCase lc = c < 6 ? DateCase::as_written : c < 7 ? DateCase::lower : DateCase::upper;
    return {d, form, write_date(d, form, lc), iso_date(d)};
  }
}

std::vector<DateExample> DatesTask::held_out_set(int n) const {
  Rng rng = Rng::stream(seed_, /*label "held-out dates"*/ 13);
  std::vector<DateExample> out;
  for (int i = 0; i < n; ++i) out.push_back(sample(rng, true));
  return out;
}

Batch DatesTask::encode(const std::vector<DateExample>& examples) {
  TFP_CHECK(!examples.empty(), "dates task: empty batch");
  Batch b;
  b.B = static_cast<int>(examples.size());
  std::vector<std::vector<int>> src;
  for (const DateExample& e : examples) {
    src.push_back(encode_text(e.source));
    TFP_CHECK(!src.back().empty() && src.back().size() <= size_t{kMaxSource}, "dates task: source of ",
              src.back().size(), " characters (1..", kMaxSource, ")");
    TFP_CHECK(e.target.size() == size_t{kMaxTarget}, "dates task: target \"", e.target, "\" is not an ISO date");
    b.S = std::max(b.S, static_cast<int>(src.back().size()));
  }
  b.T = kMaxTarget + 1;
  for (size_t i = 0; i < examples.size(); ++i) {
    for (int s = 0; s < b.S; ++s) {
      const bool real = s < static_cast<int>(src[i].size());
      b.src.push_back(real ? src[i][static_cast<size_t>(s)] : kPad);
      b.src_pad.push_back(real ? 0 : 1);
    }
    const std::vector<int> in = encode_text(">" + examples[i].target), out = encode_text(examples[i].target + "#");
    b.tgt.insert(b.tgt.end(), in.begin(), in.end());
    b.targets.insert(b.targets.end(), out.begin(), out.end());
  }
  return b;
}

std::string DatesTask::tokenizer_json() {
  nlohmann::json vocab_j = nlohmann::json::object();
  for (int i = 0; i < vocab_size(); ++i) vocab_j[vocab()[static_cast<size_t>(i)]] = i;
  nlohmann::json j = {{"version", "1.0"},
                      {"added_tokens", nlohmann::json::array()},
                      {"normalizer", nullptr},
                      {"pre_tokenizer", nullptr},
                      {"post_processor", nullptr},
                      {"decoder", {{"type", "Fuse"}}},
                      {"model", {{"type", "Char"}, {"vocab", vocab_j}, {"unk_token", nullptr}}}};
  return j.dump(2);
}

}  // namespace tfp::train
