package main

import "president"

// Choose is the whole bot: given its turn, it returns one of the legal actions. Replace it with your own.
//
// It names the best cards it may in a Norwegian request, gives back its worst cards, plays the weakest play
// that keeps the top rank in hand, and passes rather than spend the top rank while it can.
func Choose(t *president.Turn) *president.Action {
	switch t.Obs.GetPhase() {
	case president.PhaseRequest:
		best := t.Legal[0] // the first request of the largest size names the best cards
		for _, a := range t.Legal {
			if len(a.GetRequest().GetCards()) > len(best.GetRequest().GetCards()) {
				best = a
			}
		}
		return best
	case president.PhaseGiveBack:
		return t.Legal[0] // give-backs come worst cards first
	}
	for _, play := range t.Plays() { // weakest first
		if play.GetPlay().GetRank() != t.TopRank() {
			return play
		}
	}
	if t.CanPass() {
		return t.Pass()
	}
	return t.LowestPlay()
}
