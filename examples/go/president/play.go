package president

import (
	"context"
	"errors"
	"io"
	"time"

	"google.golang.org/grpc/metadata"
	pb "presidentpb/v1"
)

// errStopped is a Play bot stopped (Ctrl-C, SIGTERM) before its match was over.
var errStopped = errors.New("stopped before the match was over")

// playSeat plays the seat of a seat token on the Play stream until MatchOver, resuming after lost connections.
func (r *runner) playSeat(ctx context.Context, client pb.PresidentServiceClient, server, token, name string) (
	*seat, error) {
	s := newSeat("")
	rc := &reconnection{server: server, what: "seat"}
	for number := 1; ; number++ {
		err := r.playStream(ctx, client, token, name, s, number, rc)
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, errStopped
		}
		wait, fatal := rc.after(err)
		if fatal != nil {
			return nil, fatal
		}
		r.log.infof("%s: the connection was lost (%s); reconnecting in %v to resume after event %d", r.log.where(s),
			describeError(err), wait, s.lastSeq)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, errStopped
		}
	}
}

// playStream is one Play stream, from Hello to MatchOver (nil) or to its failure.
func (r *runner) playStream(ctx context.Context, client pb.PresidentServiceClient, token, name string, s *seat,
	number int, rc *reconnection) error {
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token))
	defer cancel()
	stream, err := client.Play(ctx)
	if err != nil {
		return err
	}
	c := &connection{number: number, send: func(_ string, act *pb.Act) error {
		return stream.Send(&pb.PlayRequest{Kind: &pb.PlayRequest_Act{Act: act}})
	}}
	r.mu.Lock()
	hello := &pb.Hello{LastSeq: s.lastSeq, Name: name}
	r.mu.Unlock()
	if err := stream.Send(&pb.PlayRequest{Kind: &pb.PlayRequest_Hello{Hello: hello}}); err != nil {
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
		if msg.GetWelcome() != nil {
			rc.success()
			r.log.infof("seated in match %s as player %d of %d", msg.GetWelcome().GetMatchId(),
				msg.GetWelcome().GetPlayer(), len(msg.GetWelcome().GetNames()))
		}
		r.handle(s, c, msg)
		if msg.GetMatchOver() != nil {
			c.mu.Lock()
			_ = stream.CloseSend()
			c.mu.Unlock()
			return nil
		}
	}
}
