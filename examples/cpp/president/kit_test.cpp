// The kit's own tests (`make test`): the helpers, the deadline, a throw, an illegal answer, a repeated prompt,
// a refused act, the reconnection's verdicts, the options. No framework: each test throws on its first failure.
#include <cstdlib>
#include <iostream>

#include "president/kit.h"

namespace president {
namespace {

struct Failure {
  std::string what;
};

#define CHECK(condition)                                                             \
  do {                                                                               \
    if (!(condition)) throw Failure{Cat(__FILE__, ":", __LINE__, ": ", #condition)}; \
  } while (0)

Action PlayOf(Rank rank, std::initializer_list<v1::Suit> suits) {
  Action action;
  action.mutable_play()->set_rank(rank);
  for (v1::Suit suit : suits) {
    Card* card = action.mutable_play()->add_cards();
    card->set_rank(rank);
    card->set_suit(suit);
  }
  return action;
}

Action PassAction() {
  Action action;
  action.mutable_pass_turn();
  return action;
}

bool Same(const Action& a, const Action& b) { return a.SerializeAsString() == b.SerializeAsString(); }

Turn Following() {
  Turn turn;
  turn.id = 7;
  for (uint32_t size : {5, 3, 0, 8}) turn.obs.add_hand_sizes(size);
  turn.obs.add_rank_order(v1::RANK_THREE);
  turn.obs.add_rank_order(v1::RANK_TWO);
  turn.legal = {PlayOf(v1::RANK_FIVE, {v1::SUIT_CLUBS}), PlayOf(v1::RANK_TWO, {v1::SUIT_HEARTS}), PassAction()};
  return turn;
}

// A bot that answers only when released: a bot too slow for any deadline. It lives as long as the program,
// since the bot's thread may still be inside Choose when a test ends.
class Stuck : public Bot {
 public:
  Action Choose(const Turn& turn) override {
    std::unique_lock<std::mutex> lock(mu_);
    released_.wait(lock, [this] { return free_; });
    return turn.legal[1];
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    free_ = true;
    released_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable released_;
  bool free_ = false;
};

std::ostringstream discarded;
Logger quiet(discarded, discarded, false, false);

std::pair<Action, v1::BotFault> DecideOnce(Bot& bot, std::shared_ptr<Decision> decision) {
  BotThread thread(bot);
  return Decide(thread, decision, quiet);
}

// A connection that keeps what it is given.
class Recorder : public Connection {
 public:
  using Connection::Connection;
  void Act(const std::string&, const v1::Act& act) override {
    std::lock_guard<std::mutex> lock(mu_);
    acts_.push_back(act);
    sent_.notify_all();
  }
  void Cancel() override {}
  // The acts once there are `count` of them (or after a second, however many there are).
  std::vector<v1::Act> Acts(size_t count) {
    std::unique_lock<std::mutex> lock(mu_);
    sent_.wait_for(lock, std::chrono::seconds(1), [&] { return acts_.size() >= count; });
    return acts_;
  }

 private:
  std::mutex mu_;
  std::condition_variable sent_;
  std::vector<v1::Act> acts_;
};

void HelpersReadTheLegalActionsInTheirOrder() {
  Turn turn = Following();
  CHECK(ActionText(*turn.LowestPlay()) == "play 5C as 5");
  CHECK(turn.CanPass() && Same(*turn.Pass(), PassAction()) && turn.Plays().size() == 2);
  CHECK(turn.CardsLeft(1) == 3 && turn.CardsLeft(9) == 0 && turn.TopRank() == v1::RANK_TWO);
  Turn leading;
  leading.legal = {PlayOf(v1::RANK_FOUR, {v1::SUIT_SPADES})};
  CHECK(!leading.CanPass() && !leading.Pass());
}

void TheBotsOwnLegalAnswerIsSent() {
  BotFunction bot([](const Turn& t) { return t.legal[2]; });
  auto [action, fault] = DecideOnce(bot, std::make_shared<Decision>(Following()));
  CHECK(Same(action, PassAction()) && fault == v1::BOT_FAULT_UNSPECIFIED);
}

void ASlowBotIsAnsweredForBeforeTheDeadline() {
  static Stuck bot;
  Turn turn = Following();
  turn.deadline = Clock::now() + std::chrono::seconds(2);
  auto [action, fault] = DecideOnce(bot, std::make_shared<Decision>(turn));
  CHECK(Clock::now() < *turn.deadline);
  CHECK(Same(action, turn.legal[0]) && fault == v1::BOT_FAULT_TIMEOUT);
  bot.Release();
}

void ATurnDeadlineBoundsTheDecisionUnderWay() {
  static Stuck bot;
  auto decision = std::make_shared<Decision>(Following());  // prompted without a deadline: the clock starts later
  auto deadline = Clock::now() + std::chrono::seconds(2);
  decision->Move(deadline);
  auto [action, fault] = DecideOnce(bot, decision);
  CHECK(Clock::now() < deadline && Same(action, decision->turn.legal[0]) && fault == v1::BOT_FAULT_TIMEOUT);
  bot.Release();
}

void AThrowOrAnIllegalAnswerIsReplacedAndReported() {
  BotFunction thrower([](const Turn&) -> Action { throw std::runtime_error("no idea"); });
  BotFunction cheat([](const Turn&) { return PlayOf(v1::RANK_ACE, {v1::SUIT_CLUBS}); });
  for (auto [bot, want] :
       {std::pair<Bot*, v1::BotFault>{&thrower, v1::BOT_FAULT_ERROR}, {&cheat, v1::BOT_FAULT_INVALID}}) {
    auto [action, fault] = DecideOnce(*bot, std::make_shared<Decision>(Following()));
    CHECK(Same(action, Following().legal[0]) && fault == want);
  }
}

v1::PlayResponse PromptOf(const Turn& turn) {
  v1::PlayResponse message;
  message.mutable_prompt()->set_turn_id(turn.id);
  for (const Action& action : turn.legal) *message.mutable_prompt()->add_legal_actions() = action;
  return message;
}

void ARepeatedPromptGetsTheActAlreadySent() {
  BotFunction bot([](const Turn& t) { return t.legal[2]; });
  std::ostringstream out, err;
  auto runner = std::make_shared<Runner>(bot, out, err, false, false);
  auto seat = std::make_shared<Seat>("m1");
  auto first = std::make_shared<Recorder>(1), second = std::make_shared<Recorder>(2);
  v1::PlayResponse prompt = PromptOf(Following());
  runner->SetConnection(first);
  runner->Handle(seat, first, prompt);
  std::vector<v1::Act> sent = first->Acts(1);
  CHECK(sent.size() == 1 && sent[0].turn_id() == 7 && Same(sent[0].action(), PassAction()));
  runner->SetConnection(second);
  runner->Handle(seat, second, prompt);  // asked again after a resume: the same act, not a new decision
  runner->Handle(seat, second, prompt);  // and again on the same connection: sent there once
  sent = second->Acts(2);
  CHECK(sent.size() == 1 && Same(sent[0].action(), PassAction()));
}

void ARefusedActIsReplacedByTheFirstLegalActionOnce() {
  BotFunction bot([](const Turn& t) { return t.legal[2]; });
  std::ostringstream out, err;
  auto runner = std::make_shared<Runner>(bot, out, err, false, false);
  auto seat = std::make_shared<Seat>("m1");
  auto connection = std::make_shared<Recorder>(1);
  runner->SetConnection(connection);
  runner->Handle(seat, connection, PromptOf(Following()));
  CHECK(connection->Acts(1).size() == 1);
  v1::PlayResponse refusal;
  refusal.mutable_action_rejected()->set_turn_id(7);
  refusal.mutable_action_rejected()->set_reason("ILLEGAL_ACTION");
  refusal.mutable_action_rejected()->set_error_reason(v1::ERROR_REASON_ILLEGAL_ACTION);
  runner->Handle(seat, connection, refusal);
  runner->Handle(seat, connection, refusal);  // refused again: the turn is left to the server's clock
  std::vector<v1::Act> sent = connection->Acts(3);
  CHECK(sent.size() == 2 && Same(sent[1].action(), Following().legal[0]) && seat->rejected == 2);
  CHECK(err.str().find("the server refused pass: ILLEGAL_ACTION") != std::string::npos);
}

void CountsTakeTheirNounInTheRightNumber() {
  CHECK(Counted(1, "match") + ", " + Counted(3, "match") + ", " + Counted(0, "action") ==
        "1 match, 3 matches, 0 actions");
}

void CodesAreNamedAsTheContractNamesThem() {
  CHECK(CodeName(grpc::StatusCode::RESOURCE_EXHAUSTED) == "RESOURCE_EXHAUSTED");
  CHECK(CodeName(grpc::StatusCode::UNAUTHENTICATED) == "UNAUTHENTICATED");
}

void ALostConnectionIsRetriedUntilTheLastDelay() {
  Reconnection rc("127.0.0.1:1", "seat");
  CHECK(rc.After(grpc::Status::OK) == kRetryDelays[0]);  // a stream the server ended: a lost connection
  for (size_t i = 1; i < kRetryDelays.size(); ++i) rc.After(grpc::Status::OK);
  bool gave_up = false;
  try {
    rc.After(grpc::Status::OK);
  } catch (const Error&) {
    gave_up = true;
  }
  CHECK(gave_up);
}

void AServerThatIsNotThereIsAnErrorAtOnce() {
  Reconnection rc("127.0.0.1:1", "seat");
  std::string said;
  try {
    rc.After(grpc::Status(grpc::StatusCode::UNAVAILABLE, "Connection refused"));
  } catch (const Error& e) {
    said = e.what();
  }
  CHECK(said.rfind("cannot reach 127.0.0.1:1: ", 0) == 0);
}

void OptionsAreReadWithTheEnvironmentsDefaults() {
  unsetenv("PRESIDENT_TOKEN");  // whatever the shell running the tests has
  setenv("PRESIDENT_SERVER", "example:1", 1);
  setenv("PRESIDENT_ACCOUNT_TOKEN", "acct", 1);
  Config config = ParseArgs({"--max-matches=2", "--matches", "3", "--arena"});
  CHECK(config.server == "example:1" && config.account_token == "acct" && config.max_matches == 2 &&
        config.stop_after == 3 && config.arena);
  unsetenv("PRESIDENT_SERVER");
  unsetenv("PRESIDENT_ACCOUNT_TOKEN");
  CHECK(ParseArgs({"--token", "t"}).server == "localhost:50051");
  const std::vector<std::vector<std::string>> mistakes = {
      {"--turbo"}, {"--token"}, {}, {"--token", "t", "--account-token", "a"}, {"--token", "t", "--matches", "many"}};
  for (const auto& bad : mistakes) {
    bool refused = false;
    try {
      ParseArgs(bad);
    } catch (const UsageError&) {
      refused = true;
    }
    CHECK(refused);
  }
}

}  // namespace
}  // namespace president

int main() {
  using Test = void (*)();
  const std::vector<std::pair<const char*, Test>> tests = {
#define TEST(name) {#name, president::name}
      TEST(HelpersReadTheLegalActionsInTheirOrder),
      TEST(TheBotsOwnLegalAnswerIsSent),
      TEST(ASlowBotIsAnsweredForBeforeTheDeadline),
      TEST(ATurnDeadlineBoundsTheDecisionUnderWay),
      TEST(AThrowOrAnIllegalAnswerIsReplacedAndReported),
      TEST(ARepeatedPromptGetsTheActAlreadySent),
      TEST(ARefusedActIsReplacedByTheFirstLegalActionOnce),
      TEST(CountsTakeTheirNounInTheRightNumber),
      TEST(CodesAreNamedAsTheContractNamesThem),
      TEST(ALostConnectionIsRetriedUntilTheLastDelay),
      TEST(AServerThatIsNotThereIsAnErrorAtOnce),
      TEST(OptionsAreReadWithTheEnvironmentsDefaults),
#undef TEST
  };
  int failed = 0;
  for (const auto& [name, test] : tests) {
    try {
      test();
    } catch (const president::Failure& failure) {
      ++failed;
      std::cout << "FAIL " << name << ": " << failure.what << std::endl;
    }
  }
  if (failed > 0) {
    std::cout << "FAIL " << failed << " of " << tests.size() << " tests" << std::endl;
    return 1;
  }
  std::cout << "ok   " << tests.size() << " tests" << std::endl;
  return 0;
}
