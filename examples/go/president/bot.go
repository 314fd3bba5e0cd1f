// Package president is the Go kit for President bots. A bot is one method, Choose, given its turn (what its
// player sees and every legal action); the kit plays it on a server over the president.v1 gRPC contract: one
// seat on the Play stream, or every match of an account at once on a Session. It resumes after a lost
// connection from the last event seen, and answers every turn before its deadline.
package president

import (
	"time"

	pb "presidentpb/v1"
)

// The contract's messages a bot reads and returns (generated from protos/ when the kit is built).
type (
	Action      = pb.Action
	Card        = pb.Card
	Observation = pb.Observation
	Rules       = pb.Rules
	Rank        = pb.Rank
	Phase       = pb.Phase
)

// The phases a bot is asked to act in.
const (
	PhaseRequest  = pb.Phase_PHASE_REQUEST   // Norwegian exchange: name up to Obs.Owed cards you want
	PhaseGiveBack = pb.Phase_PHASE_GIVE_BACK // exchange: give Obs.Owed cards back
	PhasePlay     = pb.Phase_PHASE_PLAY      // play to the trick, or pass
)

// A Bot chooses one action for each of its turns.
type Bot interface {
	// Choose returns one of turn.Legal. If it has not returned shortly before the turn's deadline, the kit
	// sends turn.Legal[0] (always legal) instead. Calls are never concurrent, even over a Session.
	Choose(turn *Turn) *Action
}

// BotFunc makes a function a Bot.
type BotFunc func(turn *Turn) *Action

// Choose calls f.
func (f BotFunc) Choose(turn *Turn) *Action { return f(turn) }

// Turn is what a bot decides on.
type Turn struct {
	MatchID string
	Player  uint32   // the bot's player index
	Names   []string // display names, by player
	Rules   *Rules   // the match's effective rules
	ID      uint64   // the turn id
	Obs     *Observation
	// Legal holds every legal action in the engine's order: plays weakest first and pass last; give-backs
	// worst cards first; requests naming nothing first, then by size, best cards first within a size.
	Legal    []*Action
	Deadline time.Time // the last moment an answer is accepted; zero without a clock
}

// Plays are the legal plays, weakest first in the current rank order.
func (t *Turn) Plays() []*Action {
	var plays []*Action
	for _, a := range t.Legal {
		if a.GetPlay() != nil {
			plays = append(plays, a)
		}
	}
	return plays
}

// LowestPlay is the weakest legal play (fewest cards among equals), or nil when no play is legal.
func (t *Turn) LowestPlay() *Action {
	if plays := t.Plays(); len(plays) > 0 {
		return plays[0]
	}
	return nil
}

// Pass is the legal pass, or nil when passing is not legal (a trick's leader must play).
func (t *Turn) Pass() *Action {
	for _, a := range t.Legal {
		if a.GetPassTurn() != nil {
			return a
		}
	}
	return nil
}

// CanPass says whether passing is legal now.
func (t *Turn) CanPass() bool { return t.Pass() != nil }

// CardsLeft is how many cards a player holds now.
func (t *Turn) CardsLeft(player uint32) uint32 {
	if sizes := t.Obs.GetHandSizes(); int(player) < len(sizes) {
		return sizes[player]
	}
	return 0
}

// TopRank is the strongest rank now (the rank order is reversed after a revolution); jokers aside.
func (t *Turn) TopRank() Rank {
	order := t.Obs.GetRankOrder()
	return order[len(order)-1]
}
