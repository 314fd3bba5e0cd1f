package president

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// retryDelays are the waits between reconnection attempts; the kit gives up after the last.
var retryDelays = []time.Duration{200 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
	4 * time.Second, 8 * time.Second}

// errStreamEnded is a stream the server closed without a status before MatchOver: a lost connection.
var errStreamEnded = errors.New("the server ended the stream")

// errDevSeatWaiting is a dev seat's token between two matches (DEV_SEAT_WAITING): --again asks again.
var errDevSeatWaiting = errors.New("no match yet")

// reconnection decides, after a stream failed, whether to connect again and when.
type reconnection struct {
	server   string
	what     string // "seat" or "account": what the token is
	failures int
	welcomed bool // the server has welcomed this client at least once
}

// success is a stream the server welcomed: the attempts count again from the first delay.
func (rc *reconnection) success() {
	rc.failures = 0
	rc.welcomed = true
}

// after is the wait before connecting again after err, or the error to stop with (one line for a person).
func (rc *reconnection) after(err error) (time.Duration, error) {
	if !errors.Is(err, errStreamEnded) {
		st := status.Convert(err)
		reason := errorReason(st)
		switch {
		case reason == "DEV_SEAT_WAITING":
			return 0, fmt.Errorf("%w: %s", errDevSeatWaiting, st.Message())
		case reason == "BAD_TOKEN" || reason == "MISSING_TOKEN":
			return 0, fmt.Errorf("bad %s token: %s refuses it (%s)", rc.what, rc.server, describeStatus(st))
		case !rc.welcomed && st.Code() == codes.Unavailable && reason == "":
			return 0, fmt.Errorf("cannot reach %s: is the server running, and is the address right? (%s)",
				rc.server, st.Message())
		case !retryable(st.Code()):
			return 0, fmt.Errorf("the server ended the stream: %s", describeStatus(st))
		}
	}
	if rc.failures >= len(retryDelays) {
		return 0, fmt.Errorf("lost the connection to %s and could not connect again (%d attempts): %s", rc.server,
			rc.failures, describeError(err))
	}
	rc.failures++
	return retryDelays[rc.failures-1], nil
}

// retryable codes are those of a lost connection or a busy server, not of a refusal.
func retryable(code codes.Code) bool {
	switch code {
	case codes.Unavailable, codes.ResourceExhausted, codes.Canceled, codes.DeadlineExceeded, codes.Unknown,
		codes.Internal, codes.Aborted:
		return true
	}
	return false
}

// errorReason is the contract's reason in a status's google.rpc.ErrorInfo ("BAD_TOKEN"), or "" when none came.
func errorReason(st *status.Status) string {
	for _, detail := range st.Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// describeStatus writes a status as "UNAUTHENTICATED BAD_TOKEN: this token is not a seat's".
func describeStatus(st *status.Status) string {
	text := codeName(st.Code())
	if reason := errorReason(st); reason != "" {
		text += " " + reason
	}
	return text + ": " + st.Message()
}

func describeError(err error) string {
	if errors.Is(err, errStreamEnded) {
		return err.Error()
	}
	return describeStatus(status.Convert(err))
}

// codeName is a code as the contract writes it: UNAUTHENTICATED, RESOURCE_EXHAUSTED.
func codeName(code codes.Code) string {
	var b strings.Builder
	for i, r := range code.String() {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}
