// Cards and actions written as the engine writes them, for log lines.
#include "president/president.h"

namespace president {
namespace {

std::string RankText(int rank) {
  static const char* const kNames[] = {"?", "?", "2", "3", "4", "5", "6", "7", "8", "9",
                                       "10", "J", "Q", "K", "A", "JK"};
  return rank >= 0 && rank <= v1::RANK_JOKER ? kNames[rank] : "?";
}

std::string SuitText(int suit) {
  static const char* const kNames[] = {"", "C", "D", "H", "S"};
  return suit >= 0 && suit <= v1::SUIT_SPADES ? kNames[suit] : "?";
}

}  // namespace

std::string CardsText(const google::protobuf::RepeatedPtrField<Card>& cards) {
  std::string text;
  for (const Card& card : cards) {
    if (!text.empty()) text += ' ';
    text += RankText(card.rank()) + SuitText(card.suit());
  }
  return text;
}

std::string ActionText(const Action& action) {
  switch (action.kind_case()) {
    case Action::kPlay: {
      std::string text = "play " + CardsText(action.play().cards()) + " as " + RankText(action.play().rank());
      return action.play().declared() != v1::RANK_UNSPECIFIED ? text + " (declared)" : text;
    }
    case Action::kPassTurn:
      return "pass";
    case Action::kGiveBack:
      return "give back " + CardsText(action.give_back().cards());
    case Action::kRequest:
      return action.request().cards().empty() ? "request nothing" : "request " + CardsText(action.request().cards());
    case Action::KIND_NOT_SET:
      break;
  }
  return "no action";
}

}  // namespace president
