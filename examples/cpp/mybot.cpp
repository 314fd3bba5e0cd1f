#include "president/president.h"

using president::Action;
using president::Turn;

// Choose is the whole bot: given its turn, it returns one of the legal actions. Replace it with your own.
//
// It names the best cards it may in a Norwegian request, gives back its worst cards, plays the weakest play
// that keeps the top rank in hand, and passes rather than spend the top rank while it can.
Action Choose(const Turn& t) {
  switch (t.obs.phase()) {
    case president::kPhaseRequest: {
      const Action* best = &t.legal[0];  // the first request of the largest size names the best cards
      for (const Action& a : t.legal) {
        if (a.request().cards_size() > best->request().cards_size()) best = &a;
      }
      return *best;
    }
    case president::kPhaseGiveBack:
      return t.legal[0];  // give-backs come worst cards first
    default:
      break;
  }
  for (const Action& play : t.Plays()) {  // weakest first
    if (play.play().rank() != t.TopRank()) return play;
  }
  if (t.CanPass()) return *t.Pass();
  return *t.LowestPlay();
}
