// The helpers a bot reads its turn with.
#include "president/president.h"

namespace president {

std::vector<Action> Turn::Plays() const {
  std::vector<Action> plays;
  for (const Action& action : legal) {
    if (action.has_play()) plays.push_back(action);
  }
  return plays;
}

std::optional<Action> Turn::LowestPlay() const {
  for (const Action& action : legal) {
    if (action.has_play()) return action;
  }
  return std::nullopt;
}

std::optional<Action> Turn::Pass() const {
  for (const Action& action : legal) {
    if (action.has_pass_turn()) return action;
  }
  return std::nullopt;
}

bool Turn::CanPass() const { return Pass().has_value(); }

uint32_t Turn::CardsLeft(uint32_t of) const {
  return int(of) < obs.hand_sizes_size() ? obs.hand_sizes(int(of)) : 0;
}

Rank Turn::TopRank() const {
  const auto& order = obs.rank_order();
  return order.empty() ? v1::RANK_UNSPECIFIED : Rank(order[order.size() - 1]);
}

}  // namespace president
