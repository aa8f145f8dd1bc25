// The training page's two word tasks (train/tasks.h): number words → digits and written
// dates → ISO, each with its own vocabulary; the digit tasks keep theirs.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "model/model.h"
#include "train/seq_dates.h"
#include "train/seq_numbers.h"
#include "train/tasks.h"
#include "cli/train_flags.h"
#include "train/trainer.h"

using namespace tfp;
using namespace tfp::train;
using tfp::cli::parse_train_args;
using model::Architecture;

TEST_CASE("train tasks: per-task vocabularies") {
  // The digit tasks: exactly the 15-token vocabulary, in its order.
  for (TaskKind k : {TaskKind::Copy, TaskKind::Reverse, TaskKind::Sort, TaskKind::Add}) {
    const Task t(k, 1);
    REQUIRE(t.n_tokens() == Task::vocab_size());
    CHECK(t.vocab_text() == Task::vocab());
    for (int i = 0; i < t.n_tokens(); ++i) CHECK(t.id(std::string(1, Task::character(i))) == i);
  }
  // numbers: the shipped numbers models' 67 characters; dates: the dates model's 73.
  const Task n(TaskKind::Numbers, 1), d(TaskKind::Dates, 1);
  CHECK(n.vocab_text() == NumbersTask::vocab());
  CHECK(n.n_tokens() == 67);
  CHECK(d.pieces() == DatesTask::vocab());
  CHECK(d.n_tokens() == 73);
  for (const Task* t : {&n, &d}) {
    CHECK(t->piece(Task::kPad) == "_");
    CHECK(t->separator_id() == 2);
    CHECK(t->piece(2) == ">");
  }
  CHECK(n.piece(Task::kEnd) == ".");
  CHECK(d.piece(Task::kEnd) == "#");  // '.' is a character of "3.3.2021"
  CHECK(d.end_mark() == '#');
  CHECK(d.piece(72) == "日");
  CHECK(parse_task("numbers") == TaskKind::Numbers);
  CHECK(parse_task("dates-iso") == TaskKind::Dates);
  CHECK(n.size() == 6);
  CHECK(d.size() == 10);
  CHECK_THROWS_AS(Task(TaskKind::Numbers, 1, 4), Error);
  CHECK(n.max_prompt_len() == 72);
  CHECK(d.max_prompt_len() == 32);
  CHECK(n.max_answer_len() == 6);
  CHECK(d.max_answer_len() == 10);
}

TEST_CASE("train tasks: numbers and dates answers (hand-checked)") {
  const Task n(TaskKind::Numbers, 1), d(TaskKind::Dates, 1);
  CHECK(n.solve("forty-two") == "42");
  CHECK(n.solve("three hundred and forty-two thousand five") == "342005");
  CHECK(n.solve("Nine Thousand And Twelve") == "9012");
  CHECK(n.solve("SEVENTY SEVEN") == "77");
  CHECK(n.solve("zero") == "0");
  CHECK(d.solve("3 March 2021") == "2021-03-03");
  CHECK(d.solve("Wednesday, March 3, 2021") == "2021-03-03");
  CHECK(d.solve("the 3rd of March 2021") == "2021-03-03");
  CHECK(d.solve("2021年3月3日") == "2021-03-03");
  CHECK(d.solve("04/03/21") == "2021-03-04");  // day/month/year
  CHECK(d.solve("31.12.1950") == "1950-12-31");

  // What a reader may type: the message names the problem.
  CHECK(n.prompt_error("forty-two") == "");
  CHECK(n.prompt_error("forty_two").find("the character '_' is not one the numbers task reads") != std::string::npos);
  CHECK(n.prompt_error("fourty-two").find("unknown word") != std::string::npos);
  CHECK(n.prompt_error("").find("this task takes 1 to 72") != std::string::npos);
  CHECK(d.prompt_error("2021年3月3日") == "");
  CHECK(d.prompt_error("3 Marhc 2021") != "");
  CHECK(d.prompt_error("3 March 2021 ✓").find("'✓'") != std::string::npos);
  const Task copy(TaskKind::Copy, 1), add(TaskKind::Add, 1);
  CHECK(copy.prompt_error("3141") == "");
  CHECK(copy.prompt_error("31a1") == "prompt \"31a1\" may hold only digits (and '+' for add)");
  CHECK(add.prompt_error("123+045") == "");
  CHECK(add.prompt_error("12+45").find("two 3-digit operands") != std::string::npos);
}

TEST_CASE("train tasks: numbers and dates held-out splits are disjoint from training") {
  for (TaskKind k : {TaskKind::Numbers, TaskKind::Dates}) {
    CAPTURE(task_name(k));
    const Task t(k, 5);
    Rng rng(17);
    std::set<std::string> trained, held;  // the answers: the value, the date
    for (int i = 0; i < 3000; ++i) {
      const Example tr = t.sample(rng, false), ho = t.sample(rng, true);
      CHECK(t.solve(tr.prompt) == tr.answer);
      CHECK(t.solve(ho.prompt) == ho.answer);
      CHECK_FALSE(t.is_held_out(tr.prompt));
      CHECK(t.is_held_out(ho.prompt));
      trained.insert(tr.answer);
      held.insert(ho.answer);
    }
    for (const std::string& a : held) CHECK(trained.count(a) == 0);
    CHECK(held.size() > 500);
  }
  // The numbers split is the shipped generator's (by value; none below 100).
  const Task n(TaskKind::Numbers, 5);
  const NumbersTask gen(5);
  for (int64_t v : {5, 42, 150, 999, 12345, 777777}) CHECK(n.is_held_out(number_to_words(v)) == gen.is_held_out(v));
}

TEST_CASE("train tasks: numbers and dates encodings, code point by code point") {
  const Task d(TaskKind::Dates, 1);
  const std::vector<int> ids = d.tokenize("2021年3月3日");
  REQUIRE(ids.size() == 9);
  CHECK(d.piece(ids[4]) == "年");
  CHECK(d.length("2021年3月3日") == 9);
  const Batch e = d.encode({{"2021年3月3日", "2021-03-03"}}, Architecture::encoder_decoder);
  REQUIRE(e.S == 32);
  REQUIRE(e.T == 11);
  CHECK(e.src[4] == d.id("年"));
  CHECK(e.src_pad[8] == 0);
  CHECK(e.src_pad[9] == 1);
  CHECK(e.src[9] == Task::kPad);
  CHECK(e.tgt[0] == d.separator_id());
  CHECK(e.tgt[1] == d.id("2"));
  CHECK(e.targets[4] == d.id("-"));
  CHECK(e.targets[10] == Task::kEnd);

  const Task n(TaskKind::Numbers, 1);
  // Decoder-only "forty-two>42.": 9 prompt characters, graded from the separator's target on.
  const Batch b = n.encode({{"forty-two", "42"}}, Architecture::decoder_only);
  REQUIRE(b.T == 72 + 1 + 6);
  CHECK(b.tgt[5] == n.id("-"));
  CHECK(b.tgt[9] == n.separator_id());
  CHECK(b.targets[8] == -100);
  CHECK(b.targets[9] == n.id("4"));
  CHECK(b.targets[10] == n.id("2"));
  CHECK(b.targets[11] == Task::kEnd);
  CHECK(b.targets[12] == -100);
}

TEST_CASE("train tasks: a numbers / dates trainer exports files the engine reads with the task's tokens") {
  for (TaskKind k : {TaskKind::Numbers, TaskKind::Dates}) {
    CAPTURE(task_name(k));
    TrainerOptions o;
    o.task = k;
    o.architecture = Architecture::encoder_decoder;
    o.d_model = 16, o.n_heads = 2, o.n_layers = 1, o.d_ff = 32;
    o.batch = 4, o.steps = 10, o.eval_examples = 8;
    Trainer t(o);
    for (int i = 0; i < 2; ++i) t.step();
    const EvalStats e = t.evaluate();
    CHECK(e.examples == 8);
    const std::string prompt = k == TaskKind::Numbers ? "forty-two" : "2021年3月3日";
    const std::string answer = t.generate(prompt);  // untrained: any string of the vocabulary
    CHECK(answer.size() <= 4 * 11);
    t.inspect({prompt, t.task().solve(prompt)});
    CHECK(t.attention(1, 0, 0).keys.substr(0, prompt.size()) == prompt);

    model::ModelFiles files;
    files.config_json = t.config_json();
    files.safetensors = t.safetensors();
    files.tokenizer_json = t.tokenizer_json();
    files.name = task_name(k);
    const model::LoadedModel lm = model::load_model(std::move(files));
    CHECK(lm.config().vocab_size == t.task().n_tokens());
    CHECK(lm.eos_token_id == Task::kEnd);
    CHECK(lm.decoder_start_token_id == 2);
    REQUIRE(lm.tokenizer != nullptr);
    const std::vector<int> ids = t.task().tokenize(prompt);
    CHECK(lm.tokenizer->encode(prompt, false).ids == std::vector<int32_t>(ids.begin(), ids.end()));
    CHECK(lm.tokenizer->decode({t.task().id("2"), t.task().id("0")}) == "20");
  }
  // `tfp train numbers` trains an encoder-decoder unless told otherwise.
  CHECK(parse_train_args({"numbers"}).trainer.architecture == Architecture::encoder_decoder);
  CHECK(parse_train_args({"dates-iso", "--arch", "decoder"}).trainer.architecture == Architecture::decoder_only);
  CHECK(parse_train_args({"copy"}).trainer.architecture == Architecture::decoder_only);
}
