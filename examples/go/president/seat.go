package president

import (
	"fmt"
	"sync"
	"time"

	"github.com/golang/protobuf/proto"
	"github.com/golang/protobuf/ptypes"
	pb "presidentpb/v1"
)

// safetyMargin is kept back from a deadline for the answer to travel to the server.
const safetyMargin = 250 * time.Millisecond

// promptsKept is how many recent turns a seat remembers: a prompt repeated after a resume, or a late refusal,
// finds what was sent.
const promptsKept = 8

// seat is one match's side of the seat protocol: the same messages come on a Play stream and in a Session.
type seat struct {
	matchID  string
	player   uint32
	names    []string
	rules    *Rules
	lastSeq  uint64                    // the last event seen: where a new connection resumes
	prompts  map[uint64]*pb.Prompt     // by turn id
	answered map[uint64]*pb.Act        // the act sent for each turn
	sentOn   map[uint64]int            // the connection each act went out on
	deciding map[uint64]chan time.Time // turns the bot is deciding, and where a TurnDeadline moves the deadline
	retried  map[uint64]bool           // turns whose refused act was replaced once
	accepted int
	rejected int
	result   *pb.MatchResult
}

func newSeat(matchID string) *seat {
	return &seat{matchID: matchID, prompts: map[uint64]*pb.Prompt{}, answered: map[uint64]*pb.Act{},
		sentOn: map[uint64]int{}, deciding: map[uint64]chan time.Time{}, retried: map[uint64]bool{}}
}

// connection is one stream to the server: a Play stream, or a Session carrying every match.
type connection struct {
	number int
	mu     sync.Mutex // a gRPC stream takes one Send at a time
	send   func(matchID string, act *pb.Act) error
}

func (c *connection) act(matchID string, act *pb.Act) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.send(matchID, act)
}

// runner plays a bot's seats: it turns each server message into what to do, and decides under the deadline.
type runner struct {
	bot     Bot
	botMu   sync.Mutex // Choose is never called twice at once
	log     *logger
	mu      sync.Mutex // guards the seats and the current connection
	current *connection
}

// setConnection makes c the connection acts go out on (nil while there is none).
func (r *runner) setConnection(c *connection) {
	r.mu.Lock()
	r.current = c
	r.mu.Unlock()
}

// handle takes one message of seat s's match, as it arrived on connection c.
func (r *runner) handle(s *seat, c *connection, msg *pb.PlayResponse) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case msg.GetWelcome() != nil:
		w := msg.GetWelcome()
		s.matchID, s.player, s.names, s.rules = w.GetMatchId(), w.GetPlayer(), w.GetNames(), w.GetRules()
	case msg.GetEvent() != nil:
		if seq := msg.GetEvent().GetSeq(); seq > s.lastSeq {
			s.lastSeq = seq
		}
	case msg.GetSnapshot() != nil:
		if seq := msg.GetSnapshot().GetLastSeq(); seq > s.lastSeq {
			s.lastSeq = seq
		}
	case msg.GetPrompt() != nil:
		r.prompt(s, c, msg.GetPrompt())
	case msg.GetTurnDeadline() != nil:
		td := msg.GetTurnDeadline()
		if moved, ok := s.deciding[td.GetTurnId()]; ok {
			if deadline, err := ptypes.Timestamp(td.GetDeadline()); err == nil {
				select {
				case moved <- deadline:
				default: // the decision is over already
				}
			}
		}
	case msg.GetActionAccepted() != nil:
		s.accepted++
	case msg.GetActionRejected() != nil:
		r.refused(s, c, msg.GetActionRejected())
	case msg.GetMatchOver() != nil:
		s.result = msg.GetMatchOver().GetResult()
	}
}

// prompt answers a turn once: a prompt repeated on a new connection gets the act already sent again.
func (r *runner) prompt(s *seat, c *connection, p *pb.Prompt) {
	turn := p.GetTurnId()
	if act, ok := s.answered[turn]; ok {
		if s.sentOn[turn] != c.number {
			s.sentOn[turn] = c.number
			go r.send(s.matchID, c, act)
		}
		return
	}
	if _, ok := s.deciding[turn]; ok {
		return // still deciding: the act goes out on the connection open when it is decided
	}
	for old := range s.prompts {
		if old+promptsKept <= turn {
			delete(s.prompts, old)
			delete(s.answered, old)
			delete(s.sentOn, old)
			delete(s.retried, old)
		}
	}
	s.prompts[turn] = p
	moved := make(chan time.Time, 4)
	s.deciding[turn] = moved
	t := &Turn{MatchID: s.matchID, Player: s.player, Names: s.names, Rules: s.rules, ID: turn,
		Obs: p.GetObservation(), Legal: p.GetLegalActions()}
	if p.GetDeadline() != nil {
		t.Deadline, _ = ptypes.Timestamp(p.GetDeadline())
	}
	go func() {
		action, fault := decide(r.bot, &r.botMu, t, moved, r.log)
		act := &pb.Act{TurnId: turn, Action: action, Fault: fault}
		r.mu.Lock()
		delete(s.deciding, turn)
		s.answered[turn] = act
		current := r.current
		if current != nil {
			s.sentOn[turn] = current.number
		}
		where := r.log.where(s)
		r.mu.Unlock()
		r.log.verbose("%s turn %d: %s", where, turn, ActionText(action))
		if current != nil {
			r.send(s.matchID, current, act)
		}
	}()
}

// refused says why the server refused an act, and sends the first legal action instead, once, if it is another.
func (r *runner) refused(s *seat, c *connection, rej *pb.ActionRejected) {
	s.rejected++
	turn := rej.GetTurnId()
	sent := s.answered[turn]
	r.log.errorf("%s turn %d: the server refused %s: %s %s %s", r.log.where(s), turn, ActionText(sent.GetAction()),
		rej.GetReason(), rej.GetIllegalReason(), rej.GetMessage())
	illegal := rej.GetErrorReason() == pb.ErrorReason_ERROR_REASON_ILLEGAL_ACTION ||
		rej.GetErrorReason() == pb.ErrorReason_ERROR_REASON_MALFORMED
	p := s.prompts[turn]
	if !illegal || p == nil || s.retried[turn] || len(p.GetLegalActions()) == 0 {
		return
	}
	fallback := p.GetLegalActions()[0]
	if sent != nil && proto.Equal(sent.GetAction(), fallback) {
		return
	}
	s.retried[turn] = true
	act := &pb.Act{TurnId: turn, Action: fallback}
	s.answered[turn] = act
	s.sentOn[turn] = c.number
	r.log.errorf("%s turn %d: sending the first legal action instead: %s", r.log.where(s), turn,
		ActionText(fallback))
	go r.send(s.matchID, c, act)
}

// send writes an act; a connection that is gone is left to the next one, where the prompt comes again.
func (r *runner) send(matchID string, c *connection, act *pb.Act) {
	if err := c.act(matchID, act); err != nil {
		r.log.verbose("the act for turn %d was not sent (%v); it goes again after the reconnection", act.GetTurnId(),
			err)
	}
}

// decide asks the bot, and answers turn.Legal[0] instead when it is too slow for the deadline (which a
// TurnDeadline may set or move while it thinks), panics, or answers something that is not legal.
func decide(bot Bot, botMu *sync.Mutex, turn *Turn, moved <-chan time.Time, log *logger) (*Action, pb.BotFault) {
	type answer struct {
		action *Action
		panic  interface{}
	}
	answers := make(chan answer, 1)
	go func() {
		botMu.Lock()
		defer botMu.Unlock()
		defer func() {
			if p := recover(); p != nil {
				answers <- answer{panic: p}
			}
		}()
		answers <- answer{action: bot.Choose(turn)}
	}()
	var timer *time.Timer
	var expired <-chan time.Time // nil: no deadline, wait for the bot
	arm := func(deadline time.Time) {
		if timer != nil {
			timer.Stop()
		}
		budget := time.Until(deadline) - safetyMargin
		if budget < 50*time.Millisecond {
			budget = 50 * time.Millisecond
		}
		timer = time.NewTimer(budget)
		expired = timer.C
	}
	if !turn.Deadline.IsZero() {
		arm(turn.Deadline)
	}
	safe := turn.Legal[0]
	for {
		select {
		case got := <-answers:
			if timer != nil {
				timer.Stop()
			}
			if got.panic != nil {
				log.errorf("turn %d: the bot panicked (%v); sending the first legal action", turn.ID, got.panic)
				return safe, pb.BotFault_BOT_FAULT_ERROR
			}
			for _, legal := range turn.Legal {
				if got.action != nil && proto.Equal(got.action, legal) {
					return got.action, pb.BotFault_BOT_FAULT_UNSPECIFIED
				}
			}
			log.errorf("turn %d: the bot answered %s, which is not one of the legal actions; sending the first"+
				" legal action", turn.ID, describe(got.action))
			return safe, pb.BotFault_BOT_FAULT_INVALID
		case deadline := <-moved:
			arm(deadline)
		case <-expired:
			log.errorf("turn %d: the bot did not answer in time for the deadline; sending the first legal action",
				turn.ID)
			return safe, pb.BotFault_BOT_FAULT_TIMEOUT
		}
	}
}

func describe(a *Action) string {
	if a == nil {
		return "nil"
	}
	return fmt.Sprintf("%q", ActionText(a))
}
