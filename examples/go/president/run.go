package president

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	pb "presidentpb/v1"
)

// Config says where and how a bot plays. Exactly one of Token and AccountToken is set.
type Config struct {
	Server       string // HOST:PORT
	Token        string // a seat token: play that seat on the Play stream until its match is over
	AccountToken string // an account token: play every match of the account on one Session until stopped
	Name         string // the name a seat created without one shows (Play)
	Again        bool   // Token is a dev seat's: play each next match of the seat until stopped
	MaxMatches   uint32 // the most matches at once the arena gives the account (Session; 0: 1)
	Arena        bool   // let the server's arena put the account in rated matches (Session)
	StopAfter    int    // stop after this many finished matches (Session; 0: play until stopped)
	Verbose      bool   // log every move
	Out, Err     io.Writer
}

// Main runs bot as a command and exits: 0 when done (or stopped, on a Session), 1 on an error, 2 on bad
// arguments. Every error is one line on stderr.
//
//	./bot --server HOST:PORT --token SEAT_TOKEN [--again]
//	./bot --server HOST:PORT --account-token ACCOUNT_TOKEN [--max-matches 4] [--arena] [--matches N]
func Main(bot Bot) {
	os.Exit(mainStatus(os.Args[1:], bot))
}

func mainStatus(args []string, bot Bot) int {
	flags := flag.NewFlagSet("bot", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	cfg := Config{Out: os.Stdout, Err: os.Stderr}
	var maxMatches uint
	flags.StringVar(&cfg.Server, "server", envOr("PRESIDENT_SERVER", "localhost:50051"), "HOST:PORT of the server")
	flags.StringVar(&cfg.Token, "token", os.Getenv("PRESIDENT_TOKEN"), "a seat token: play that one seat")
	flags.StringVar(&cfg.AccountToken, "account-token", os.Getenv("PRESIDENT_ACCOUNT_TOKEN"),
		"an account token: play every match of the account, many at once, until stopped")
	flags.StringVar(&cfg.Name, "name", "go-bot", "with --token: the name a seat created without one shows")
	flags.BoolVar(&cfg.Again, "again", false,
		"with --token: a dev seat's token (make run's seat 0): play each next match of the seat until stopped")
	flags.UintVar(&maxMatches, "max-matches", 4, "with --account-token: the most matches at once from the arena")
	flags.BoolVar(&cfg.Arena, "arena", false, "with --account-token: let the arena put the bot in rated matches")
	flags.IntVar(&cfg.StopAfter, "matches", 0, "with --account-token: stop after N finished matches")
	flags.BoolVar(&cfg.Verbose, "verbose", false, "log every move")
	if err := flags.Parse(args); err != nil {
		if err == flag.ErrHelp {
			flags.SetOutput(os.Stdout)
			flags.PrintDefaults()
			return 0
		}
		fmt.Fprintf(os.Stderr, "go-bot: %v (see --help)\n", err)
		return 2
	}
	if (cfg.Token == "") == (cfg.AccountToken == "") {
		fmt.Fprintln(os.Stderr, "go-bot: give --token SEAT_TOKEN or --account-token ACCOUNT_TOKEN (see --help)")
		return 2
	}
	if cfg.Again && cfg.Token == "" {
		fmt.Fprintln(os.Stderr, "go-bot: --again plays a dev seat's --token match after match (see --help)")
		return 2
	}
	cfg.MaxMatches = uint32(maxMatches)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, cfg, bot); err != nil {
		fmt.Fprintf(os.Stderr, "go-bot: error: %v\n", err)
		return 1
	}
	return 0
}

// Run plays bot as cfg says until it is done: its seat's match is over, or (on a Session) ctx is done.
func Run(ctx context.Context, cfg Config, bot Bot) error {
	backoffs := backoff.DefaultConfig
	backoffs.BaseDelay, backoffs.MaxDelay = 200*time.Millisecond, 2*time.Second
	conn, err := grpc.Dial(cfg.Server, grpc.WithInsecure(), grpc.WithConnectParams(grpc.ConnectParams{
		Backoff: backoffs, MinConnectTimeout: 5 * time.Second}))
	if err != nil {
		return fmt.Errorf("bad server address %q: %v", cfg.Server, err)
	}
	defer conn.Close()
	client := pb.NewPresidentServiceClient(conn)
	log := &logger{out: cfg.Out, err: cfg.Err, moves: cfg.Verbose, session: cfg.AccountToken != ""}
	r := &runner{bot: bot, log: log}
	if cfg.Token != "" {
		return r.playSeats(ctx, client, cfg)
	}
	appetite := &pb.Appetite{MaxMatches: cfg.MaxMatches, Arena: cfg.Arena}
	finished, err := r.playAccount(ctx, client, cfg.Server, cfg.AccountToken, appetite, cfg.StopAfter)
	if err != nil {
		return err
	}
	log.infof("done: %s finished", counted(finished, "match"))
	return nil
}

// playSeats plays the seat token's match; with cfg.Again, each next match of the dev seat too, until ctx is done.
func (r *runner) playSeats(ctx context.Context, client pb.PresidentServiceClient, cfg Config) error {
	played, waiting := 0, false
	for {
		s, err := r.playSeat(ctx, client, cfg.Server, cfg.Token, cfg.Name)
		switch {
		case cfg.Again && errors.Is(err, errStopped):
			r.log.infof("stopped after %s", counted(played, "match"))
			return nil
		case cfg.Again && errors.Is(err, errDevSeatWaiting):
			if !waiting {
				r.log.infof("%v (--again waits for it; Ctrl-C stops)", err)
			}
			waiting = true
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				r.log.infof("stopped after %s", counted(played, "match"))
				return nil
			}
			continue
		case err != nil:
			return err
		}
		r.log.infof("match over: %s; %s accepted, %d rejected", r.log.result(s), counted(s.accepted, "action"),
			s.rejected)
		if !cfg.Again {
			return nil
		}
		played, waiting = played+1, false
	}
}

// counted writes a count with its noun in the right number: "1 match", "3 matches".
func counted(n int, noun string) string {
	switch {
	case n == 1:
		return fmt.Sprintf("1 %s", noun)
	case strings.HasSuffix(noun, "ch"):
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func envOr(name, otherwise string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return otherwise
}

// logger writes the kit's lines: progress on stdout, problems on stderr, moves with --verbose.
type logger struct {
	out, err io.Writer
	moves    bool
	session  bool
}

func (l *logger) infof(format string, args ...interface{}) {
	fmt.Fprintf(l.out, "[go-bot] "+format+"\n", args...)
}

func (l *logger) errorf(format string, args ...interface{}) {
	fmt.Fprintf(l.err, "go-bot: "+format+"\n", args...)
}

func (l *logger) verbose(format string, args ...interface{}) {
	if l.moves {
		l.infof(format, args...)
	}
}

// where names a seat in a log line: "p2", or "match m1 p2" on a Session.
func (l *logger) where(s *seat) string {
	if l.session {
		return fmt.Sprintf("match %s p%d", s.matchID, s.player)
	}
	return fmt.Sprintf("p%d", s.player)
}

// result writes a finished match's result: "winner bot (player 1), totals 1,4,2,3".
func (l *logger) result(s *seat) string {
	r := s.result
	winner := fmt.Sprintf("player %d", r.GetWinner())
	if int(r.GetWinner()) < len(s.names) {
		if name := s.names[r.GetWinner()]; name != "" && name != winner {
			winner = fmt.Sprintf("%s (%s)", name, winner)
		}
	}
	totals := make([]string, len(r.GetTotals()))
	for i, t := range r.GetTotals() {
		totals[i] = fmt.Sprint(t)
	}
	return fmt.Sprintf("winner %s, totals %s", winner, strings.Join(totals, ","))
}
