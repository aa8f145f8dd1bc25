// The "written date → ISO date" task of the shipped encoder–decoder model models/dates:
// a date in one of many written forms in, its ISO 8601 form out.
//
//   "3 March 2021"               →  "2021-03-03"
//   "Wednesday, March 3, 2021"   →  "2021-03-03"
//   "2021年3月3日"                →  "2021-03-03"
//   "04/03/21"                   →  "2021-03-04"   (day/month/year, see below)
//
// Why this task: its cross-attention must REORDER. The ISO form writes the year first
// and the day last, while most written forms put the day (or the month) first, so a good
// model's alignment leaves the diagonal: the year digits look at the end of the source,
// the day digits at its start, the month digits at the month word.
//
// Dates: every day from 1950-01-01 to 2049-12-31 (36,525 days).
//
// Forms (DateForm, drawn uniformly per example; D day, M month):
//   day_month_year        "3 March 2021"
//   day_mon_year          "3 Mar 2021"
//   month_day_year        "March 3, 2021"
//   month_ordinal_year    "March 3rd, 2021"
//   mon_day_year          "Mar 3, 2021"
//   the_ordinal_of_month  "the 3rd of March 2021"
//   weekday_month_day     "Wednesday, March 3, 2021"
//   wkd_day_month         "Wed 3 March 2021"
//   chinese               "2021年3月3日"
//   slash_dmy_short       "03/03/21"
//   slash_dmy             "03/03/2021"
//   dot_dmy               "3.3.2021"
// Letter case of the words (per example): as written above (3/4), lower (1/8), UPPER (1/8).
//
// One convention for the numeric forms: slashes and dots are DAY/MONTH/YEAR (British and
// most of Europe), never the American month/day. So "03/04/21" is 3 April 2021. A two-
// digit year yy means 19yy for yy ≥ 50 and 20yy below (the date range above).
// The weekday is always the true weekday of the date.
//
// Vocabulary: one character (code point) per token, shared by source and target:
//   '_' padding (0), '#' end (1), '>' decoder start (2), ' ' (3), '-' (4), ',' (5),
//   '/' (6), '.' (7), '0'..'9' (8..17), 'a'..'z' (18..43), 'A'..'Z' (44..69),
//   '年' (70), '月' (71), '日' (72)                                   — 73 tokens.
// The target alphabet is the digits, '-' and the end mark.
//
// Held-out split by DATE: a date is held out iff a seeded hash of its day number falls in
// the lowest 1/10, so no written form of a held-out date is ever trained on.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "train/rng.h"
#include "train/train_model.h"

namespace tfp::train {

struct Date {
  int year = 2000, month = 1, day = 1;
  bool operator==(const Date& o) const { return year == o.year && month == o.month && day == o.day; }
};

enum class DateForm {
  day_month_year, day_mon_year, month_day_year, month_ordinal_year, mon_day_year,
  the_ordinal_of_month, weekday_month_day, wkd_day_month, chinese, slash_dmy_short, slash_dmy, dot_dmy
};
constexpr int kDateForms = 12;
const char* date_form_name(DateForm f);

enum class DateCase { as_written, lower, upper };

// Days since 1970-01-01 (negative before), proleptic Gregorian; and back.
int64_t days_from_date(const Date& d);
Date date_from_days(int64_t days);
bool valid_date(const Date& d);
int weekday(const Date& d);  // 0 = Monday … 6 = Sunday
std::string iso_date(const Date& d);  // "2021-03-03"

// The date written in a form (UTF-8). Throws tfp::Error for an invalid date or a date
// outside 1950..2049.
std::string write_date(const Date& d, DateForm form, DateCase letter_case = DateCase::as_written);
// Reads a date written in any of the forms above, in any letter case; checks a weekday
// and an ordinal suffix when present ("Tuesday, March 3, 2021" and "3th" are errors).
// Throws tfp::Error naming what it cannot read.
Date parse_written_date(const std::string& text);

struct DateExample {
  Date date;
  DateForm form = DateForm::day_month_year;
  std::string source;  // "3 March 2021"
  std::string target;  // "2021-03-03" (without the end mark)
};

class DatesTask {
 public:
  explicit DatesTask(uint64_t seed = 1) : seed_(seed) {}

  static const std::vector<std::string>& vocab();  // the 73 characters (UTF-8), id order
  static int vocab_size() { return 73; }
  static constexpr int kPad = 0, kEnd = 1, kStart = 2;
  static constexpr int kFirstYear = 1950, kLastYear = 2049;
  // Longest source ("Wednesday, September 30, 2021": 29 code points) rounded up, and the
  // target length (10).
  static constexpr int kMaxSource = 32, kMaxTarget = 10;
  static std::vector<int> encode_text(const std::string& text);  // code points → ids
  static std::string decode_ids(const std::vector<int32_t>& ids);  // stops at the end mark

  bool is_held_out(const Date& d) const;
  DateExample sample(Rng& rng, bool held_out) const;
  // The fixed held-out evaluation set: n examples from a seeded stream of their own.
  std::vector<DateExample> held_out_set(int n) const;

  // Encoder–decoder batch: source = the written date, decoder input ">2021-03-03",
  // targets "2021-03-03#"; sources padded with '_' (masked keys).
  static Batch encode(const std::vector<DateExample>& examples);
  static std::string tokenizer_json();  // Char model, Fuse decoder

 private:
  uint64_t seed_;
};

}  // namespace tfp::train
