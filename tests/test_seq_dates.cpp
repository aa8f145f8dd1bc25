// The written-date task of models/dates (src/train/seq_dates.*).
// Oracles: hand-written forms of hand-picked dates (weekdays checked against a calendar:
// 3 March 2021 was a Wednesday, 1 January 1950 a Sunday, 31 December 2049 a Friday);
// the round trip parse_written_date(write_date(d, form, case)) == d for EVERY day of the
// range in every form (the parser reads pieces left to right and shares no code path
// with the writer except the month and weekday names); the held-out split is by date.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "core/error.h"
#include "model/beam.h"
#include "model/model.h"
#include "tokenizer/tokenizer_json.h"
#include "train/seq_dates.h"

using namespace tfp;
using namespace tfp::train;

TEST_CASE("seq dates: hand-checked forms of 3 March 2021") {
  const Date d{2021, 3, 3};
  CHECK(weekday(d) == 2);  // Wednesday (Monday = 0)
  CHECK(iso_date(d) == "2021-03-03");
  CHECK(write_date(d, DateForm::day_month_year) == "3 March 2021");
  CHECK(write_date(d, DateForm::day_mon_year) == "3 Mar 2021");
  CHECK(write_date(d, DateForm::month_day_year) == "March 3, 2021");
  CHECK(write_date(d, DateForm::month_ordinal_year) == "March 3rd, 2021");
  CHECK(write_date(d, DateForm::mon_day_year) == "Mar 3, 2021");
  CHECK(write_date(d, DateForm::the_ordinal_of_month) == "the 3rd of March 2021");
  CHECK(write_date(d, DateForm::weekday_month_day) == "Wednesday, March 3, 2021");
  CHECK(write_date(d, DateForm::wkd_day_month) == "Wed 3 March 2021");
  CHECK(write_date(d, DateForm::chinese) == "2021年3月3日");
  CHECK(write_date(d, DateForm::slash_dmy_short) == "03/03/21");
  CHECK(write_date(d, DateForm::slash_dmy) == "03/03/2021");
  CHECK(write_date(d, DateForm::dot_dmy) == "3.3.2021");
  CHECK(write_date(d, DateForm::day_month_year, DateCase::upper) == "3 MARCH 2021");
  CHECK(write_date(d, DateForm::wkd_day_month, DateCase::lower) == "wed 3 march 2021");
}

TEST_CASE("seq dates: ordinals, weekdays, the day/month/year convention and errors") {
  CHECK(write_date({1950, 1, 1}, DateForm::weekday_month_day) == "Sunday, January 1, 1950");
  CHECK(write_date({2049, 12, 31}, DateForm::weekday_month_day) == "Friday, December 31, 2049");
  CHECK(write_date({2000, 2, 29}, DateForm::wkd_day_month) == "Tue 29 February 2000");
  CHECK(write_date({2011, 5, 11}, DateForm::month_ordinal_year) == "May 11th, 2011");
  CHECK(write_date({2012, 6, 22}, DateForm::the_ordinal_of_month) == "the 22nd of June 2012");
  CHECK(write_date({1999, 9, 21}, DateForm::month_ordinal_year) == "September 21st, 1999");
  CHECK(write_date({2020, 9, 30}, DateForm::weekday_month_day) == "Wednesday, September 30, 2020");  // a longest source (29)
  // Numeric forms are day/month/year; yy >= 50 is 19yy.
  CHECK(parse_written_date("03/04/21") == Date{2021, 4, 3});
  CHECK(parse_written_date("03/04/51") == Date{1951, 4, 3});
  CHECK(parse_written_date("4.3.2021") == Date{2021, 3, 4});
  CHECK(parse_written_date("2021年12月25日") == Date{2021, 12, 25});
  CHECK(parse_written_date("MARCH 3RD, 2021") == Date{2021, 3, 3});
  CHECK_THROWS_AS(parse_written_date("Tuesday, March 3, 2021"), Error);  // wrong weekday
  CHECK_THROWS_AS(parse_written_date("March 3th, 2021"), Error);         // wrong ordinal
  CHECK_THROWS_AS(parse_written_date("31/02/2021"), Error);              // no such day
  CHECK_THROWS_AS(parse_written_date("3 Marchy 2021"), Error);
  CHECK_THROWS_AS(write_date({2050, 1, 1}, DateForm::dot_dmy), Error);
  CHECK_THROWS_AS(write_date({2021, 2, 29}, DateForm::dot_dmy), Error);
}

TEST_CASE("seq dates: every day in every form and case parses back to the same date") {
  const int64_t first = days_from_date({DatesTask::kFirstYear, 1, 1});
  const int64_t last = days_from_date({DatesTask::kLastYear, 12, 31});
  CHECK(last - first + 1 == 36525);
  size_t longest = 0;
  int failures = 0;
  for (int64_t z = first; z <= last; ++z) {
    const Date d = date_from_days(z);
    REQUIRE(days_from_date(d) == z);
    for (int f = 0; f < kDateForms; ++f)
      for (DateCase c : {DateCase::as_written, DateCase::lower, DateCase::upper}) {
        const std::string s = write_date(d, static_cast<DateForm>(f), c);
        longest = std::max(longest, DatesTask::encode_text(s).size());
        if (!(parse_written_date(s) == d) && ++failures < 5) FAIL_CHECK("round trip: ", s);
      }
  }
  CHECK(failures == 0);
  CHECK(longest == 29);
  CHECK(longest <= size_t{DatesTask::kMaxSource});
}

TEST_CASE("seq dates: held-out split, samples, batches and the tokenizer") {
  const DatesTask task(1);
  const std::vector<DateExample> held = task.held_out_set(300);
  Rng rng(5);
  int held_out_days = 0;
  for (int64_t z = days_from_date({1950, 1, 1}); z <= days_from_date({2049, 12, 31}); ++z)
    held_out_days += task.is_held_out(date_from_days(z));
  MESSAGE("held-out days: ", held_out_days);
  CHECK(held_out_days > 3300);  // about 1/10 of 36,525
  CHECK(held_out_days < 4000);
  std::set<int> forms;
  for (const DateExample& e : held) {
    CHECK(task.is_held_out(e.date));
    CHECK(parse_written_date(e.source) == e.date);
    CHECK(e.target == iso_date(e.date));
    forms.insert(static_cast<int>(e.form));
  }
  CHECK(forms.size() == size_t{kDateForms});
  for (int i = 0; i < 300; ++i) CHECK_FALSE(task.is_held_out(task.sample(rng, false).date));
  CHECK(task.held_out_set(5)[3].source == held[3].source);  // fixed by the seed

  const Batch b = DatesTask::encode({held[0], held[1]});
  CHECK(b.B == 2);
  CHECK(b.T == 11);
  CHECK(b.tgt[0] == DatesTask::kStart);
  CHECK(b.targets[10] == DatesTask::kEnd);
  CHECK(DatesTask::encode_text("2021年") == std::vector<int>{10, 8, 10, 9, 70});
  CHECK(DatesTask::decode_ids({10, 8, 10, 9, 4, 8, 11, 1, 9}) == "2021-03");
  CHECK_THROWS_AS(DatesTask::encode_text("3 März"), Error);

  const Tokenizer tok = load_tokenizer_json(DatesTask::tokenizer_json());
  CHECK(tok.encode("2021年3月3日").ids == std::vector<int32_t>{10, 8, 10, 9, 70, 11, 71, 11, 72});
}

// The shipped model (models/dates, README.md there): loads with the task's ids, fits the
// page (well under 1 MB), decodes the first 200 held-out examples exactly (the card says
// 1000 / 1000 with `tfp eval dates`), and its cross-attention reorders: for
// "3 March 2021" the year's first digit looks at the year at the end of the source and
// the day's digit at the start (argmax of the last layer's head-mean alignment).
TEST_CASE("seq dates: the shipped model decodes held-out dates and its alignment leaves the diagonal") {
  const std::string dir = std::string(TFP_FIXTURES_DIR) + "/../../models/dates";
  std::ifstream weights(dir + "/model.safetensors", std::ios::binary | std::ios::ate);
  REQUIRE(weights.good());
  CHECK(static_cast<long long>(weights.tellg()) < 600'000);  // 486 KB: loads fast in the page
  const model::LoadedModel m = model::load_model_dir(dir);
  REQUIRE(m.tokenizer != nullptr);
  CHECK(m.config().architecture == model::Architecture::encoder_decoder);
  CHECK(m.config().vocab_size == DatesTask::vocab_size());
  CHECK(m.eos_token_id == DatesTask::kEnd);
  CHECK(m.decoder_start_token_id == DatesTask::kStart);
  model::DecodeOptions o;
  o.start_id = DatesTask::kStart, o.eos_id = DatesTask::kEnd, o.max_tokens = DatesTask::kMaxTarget + 1;
  int ok = 0;
  const std::vector<DateExample> set = DatesTask(1).held_out_set(200);
  for (const DateExample& e : set) {
    const model::Translation t = model::decode_seq2seq(m.config(), m.weights(), m.tokenizer->encode(e.source).ids, o);
    ok += DatesTask::decode_ids(t.ids) == e.target;
  }
  MESSAGE("dates on 200 held-out: greedy exact ", ok);
  CHECK(ok == 200);

  const std::string src = "3 March 2021";  // characters: 3 ␣ M a r c h ␣ 2 0 2 1
  const model::Translation t = model::decode_seq2seq(m.config(), m.weights(), m.tokenizer->encode(src).ids, o);
  REQUIRE(DatesTask::decode_ids(t.ids) == "2021-03-03");
  const int S = static_cast<int>(t.alignment.shape[1]);
  REQUIRE(S == 12);
  auto argmax = [&](int row) {
    const float* r = t.alignment.ptr() + static_cast<size_t>(row) * S;
    return static_cast<int>(std::max_element(r, r + S) - r);
  };
  CHECK(argmax(0) >= 8);  // '2' of 2021 ← the year (source columns 8..11)
  CHECK(argmax(3) >= 8);  // '1' of 2021
  CHECK(argmax(6) >= 2);  // '3' of -03- ← "March" (columns 2..6)
  CHECK(argmax(6) <= 6);
  CHECK(argmax(9) == 0);  // the day's '3' ← the source's first character
}
