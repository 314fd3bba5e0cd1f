// The C++ kit for President bots. A bot is one method, Choose, given its turn (what its player sees and every
// legal action); the kit plays it on a server over the president.v1 gRPC contract: one seat on the Play stream,
// or every match of an account at once on a Session. It resumes after a lost connection from the last event
// seen, and answers every turn before its deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "president/v1/president.pb.h"  // generated from protos/ when the kit is built

namespace president {

// The contract's messages a bot reads and returns.
using Action = v1::Action;
using Card = v1::Card;
using Observation = v1::Observation;
using Rules = v1::Rules;
using Rank = v1::Rank;
using Phase = v1::Phase;

// The phases a bot is asked to act in.
inline constexpr Phase kPhaseRequest = v1::PHASE_REQUEST;    // Norwegian exchange: name up to obs.owed() cards
inline constexpr Phase kPhaseGiveBack = v1::PHASE_GIVE_BACK;  // exchange: give obs.owed() cards back
inline constexpr Phase kPhasePlay = v1::PHASE_PLAY;           // play to the trick, or pass

// What a bot decides on.
struct Turn {
  std::string match_id;
  uint32_t player = 0;             // the bot's player index
  std::vector<std::string> names;  // display names, by player
  Rules rules;                     // the match's effective rules
  uint64_t id = 0;                 // the turn id
  Observation obs;
  // Every legal action in the engine's order: plays weakest first and pass last; give-backs worst cards first;
  // requests naming nothing first, then by size, best cards first within a size. Never empty.
  std::vector<Action> legal;
  // The last moment an answer is accepted; none without a clock.
  std::optional<std::chrono::system_clock::time_point> deadline;

  // The legal plays, weakest first in the current rank order.
  std::vector<Action> Plays() const;
  // The weakest legal play (fewest cards among equals); none when no play is legal.
  std::optional<Action> LowestPlay() const;
  // The legal pass; none when passing is not legal (a trick's leader must play).
  std::optional<Action> Pass() const;
  // Whether passing is legal now.
  bool CanPass() const;
  // How many cards a player holds now.
  uint32_t CardsLeft(uint32_t player) const;
  // The strongest rank now (the rank order is reversed after a revolution); jokers aside.
  Rank TopRank() const;
};

// A Bot chooses one action for each of its turns.
class Bot {
 public:
  virtual ~Bot() = default;
  // Returns one of turn.legal (or an equal action). If it has not returned shortly before the turn's deadline,
  // throws, or returns something else, the kit sends turn.legal[0] (always legal) instead. Calls are never
  // concurrent, even over a Session.
  virtual Action Choose(const Turn& turn) = 0;
};

// A function as a Bot.
class BotFunction : public Bot {
 public:
  explicit BotFunction(std::function<Action(const Turn&)> choose) : choose_(std::move(choose)) {}
  Action Choose(const Turn& turn) override { return choose_(turn); }

 private:
  std::function<Action(const Turn&)> choose_;
};

// Runs bot as a command and exits: 0 when done (or stopped, on a Session), 1 on an error, 2 on bad arguments.
// Every error is one line on stderr.
//
//   ./bot --server HOST:PORT --token SEAT_TOKEN
//   ./bot --server HOST:PORT --account-token ACCOUNT_TOKEN [--max-matches 4] [--arena] [--matches N]
[[noreturn]] void Main(int argc, char** argv, Bot& bot);
[[noreturn]] void Main(int argc, char** argv, Action (*choose)(const Turn&));

// Cards as the engine writes them: "3C 3D JK".
std::string CardsText(const google::protobuf::RepeatedPtrField<Card>& cards);
// An action for a log line: "play 3C 3D as 3", "pass", "give back 4H", "request AS".
std::string ActionText(const Action& action);

}  // namespace president
