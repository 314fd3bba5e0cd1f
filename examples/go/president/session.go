package president

import (
	"context"
	"io"
	"time"

	"google.golang.org/grpc/metadata"
	pb "presidentpb/v1"
)

// account is what a Session client keeps across its connections.
type account struct {
	seats    map[string]*seat // live matches, by id
	finished int
}

// playAccount plays every match of an account on one Session until ctx is done (or `stopAfter` matches are
// over, when not 0), resuming each live match after a lost connection.
func (r *runner) playAccount(ctx context.Context, client pb.PresidentServiceClient, server, token string,
	appetite *pb.Appetite, stopAfter int) (int, error) {
	a := &account{seats: map[string]*seat{}}
	rc := &reconnection{server: server, what: "account"}
	for number := 1; ; number++ {
		err := r.session(ctx, client, token, appetite, a, number, rc, stopAfter)
		if err == nil || ctx.Err() != nil {
			return a.finished, nil
		}
		wait, fatal := rc.after(err)
		if fatal != nil {
			return a.finished, fatal
		}
		r.mu.Lock()
		live := len(a.seats)
		r.mu.Unlock()
		r.log.infof("the session was lost (%s); reconnecting in %v to resume %s", describeError(err), wait,
			counted(live, "match"))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return a.finished, nil
		}
	}
}

// session is one Session stream, until it fails (its error) or `stopAfter` matches are over (nil).
func (r *runner) session(ctx context.Context, client pb.PresidentServiceClient, token string, appetite *pb.Appetite,
	a *account, number int, rc *reconnection, stopAfter int) error {
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token))
	defer cancel()
	stream, err := client.Session(ctx)
	if err != nil {
		return err
	}
	c := &connection{number: number, send: func(matchID string, act *pb.Act) error {
		return stream.Send(&pb.SessionRequest{Kind: &pb.SessionRequest_Act{Act: &pb.MatchAct{MatchId: matchID,
			Act: act}}})
	}}
	r.mu.Lock()
	hello := &pb.SessionHello{Accepts: appetite}
	for id, s := range a.seats {
		hello.Resume = append(hello.Resume, &pb.MatchCursor{MatchId: id, LastSeq: s.lastSeq})
	}
	r.mu.Unlock()
	if err := stream.Send(&pb.SessionRequest{Kind: &pb.SessionRequest_Hello{Hello: hello}}); err != nil {
		_, err = stream.Recv() // the status says why
		return err
	}
	r.setConnection(c)
	defer r.setConnection(nil)
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return errStreamEnded
		}
		if err != nil {
			return err
		}
		switch {
		case msg.GetWelcome() != nil:
			rc.success()
			r.welcome(a, msg.GetWelcome())
		case msg.GetMatch() != nil:
			r.update(a, c, msg.GetMatch())
		case msg.GetUpdates() != nil:
			for _, update := range msg.GetUpdates().GetUpdates() {
				r.update(a, c, update)
			}
		case msg.GetNotice() != nil:
			n := msg.GetNotice()
			r.log.errorf("notice %s: %s", n.GetReason(), n.GetMessage())
		case msg.GetChallenge() != nil:
			offer := msg.GetChallenge()
			r.log.infof("declining a challenge from %s", offer.GetFrom())
			answer := &pb.SessionRequest{Kind: &pb.SessionRequest_Answer{Answer: &pb.ChallengeAnswer{
				ChallengeId: offer.GetChallengeId()}}}
			c.mu.Lock()
			err = stream.Send(answer)
			c.mu.Unlock()
			if err != nil {
				return err
			}
		}
		if stopAfter > 0 && a.finished >= stopAfter {
			return nil
		}
	}
}

// welcome forgets the matches that ended while the client was away (the server no longer lists them).
func (r *runner) welcome(a *account, w *pb.SessionWelcome) {
	live := map[string]bool{}
	for _, id := range w.GetLiveMatches() {
		live[id] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range a.seats {
		if !live[id] {
			r.log.infof("match %s ended while this bot was away", id)
			delete(a.seats, id)
		}
	}
	r.log.infof("account %s: %s", w.GetAccount(), counted(len(w.GetLiveMatches()), "live match"))
}

// update takes one match's messages; after its MatchOver the match is done.
func (r *runner) update(a *account, c *connection, u *pb.MatchUpdate) {
	r.mu.Lock()
	s, ok := a.seats[u.GetMatchId()]
	if !ok {
		s = newSeat(u.GetMatchId())
		a.seats[u.GetMatchId()] = s
	}
	r.mu.Unlock()
	for _, msg := range u.GetMessages() {
		r.handle(s, c, msg)
		if msg.GetMatchOver() != nil {
			r.mu.Lock()
			delete(a.seats, u.GetMatchId())
			a.finished++
			line := r.log.where(s) + " over: " + r.log.result(s)
			r.mu.Unlock()
			r.log.infof("%s", line)
			return
		}
	}
}
