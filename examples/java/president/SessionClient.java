package president;

import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import president.v1.President.Appetite;
import president.v1.President.ChallengeAnswer;
import president.v1.President.ChallengeOffer;
import president.v1.President.MatchAct;
import president.v1.President.MatchCursor;
import president.v1.President.MatchUpdate;
import president.v1.President.PlayResponse;
import president.v1.President.SessionHello;
import president.v1.President.SessionRequest;
import president.v1.President.SessionResponse;
import president.v1.President.SessionWelcome;
import president.v1.PresidentServiceGrpc.PresidentServiceStub;

/**
 * Every match of an account on one Session, resuming each live match after a lost connection. Only the thread
 * that reads the stream touches the matches.
 */
final class SessionClient {
    private final Runner runner;
    private final PresidentServiceStub stub; // carries the account's token
    private final Stop stop;
    private final Map<String, Seat> seats = new HashMap<>(); // live matches, by id
    private int finished;

    SessionClient(Runner runner, PresidentServiceStub stub, Stop stop) {
        this.runner = runner;
        this.stub = stub;
        this.stop = stop;
    }

    /** Plays until stopped, or until {@code stopAfter} matches are over when it is not 0; the matches finished. */
    int playAccount(String server, Appetite appetite, int stopAfter) throws KitError {
        Reconnection rc = new Reconnection(server, "account");
        for (int number = 1; ; number++) {
            try {
                stream(appetite, number, rc, stopAfter);
                return finished;
            } catch (StreamLost lost) {
                if (stop.stopped()) {
                    return finished;
                }
                Duration wait = rc.after(lost);
                runner.log.info("the session was lost (%s); reconnecting in %s to resume %s", lost.getMessage(),
                        Log.seconds(wait), Log.counted(seats.size(), "match"));
                if (stop.sleep(wait)) {
                    return finished;
                }
            }
        }
    }

    /** One Session stream, until it fails or {@code stopAfter} matches are over (a return). */
    private void stream(Appetite appetite, int number, Reconnection rc, int stopAfter) throws StreamLost {
        Inbox<SessionResponse> inbox = new Inbox<>(SessionResponse.class);
        StreamObserver<SessionRequest> requests = stub.session(inbox);
        Connection<SessionRequest> c = new Connection<>(number, requests, (matchId, act) ->
                SessionRequest.newBuilder().setAct(MatchAct.newBuilder().setMatchId(matchId).setAct(act)).build());
        stop.interrupting(inbox::interrupt);
        try {
            SessionHello.Builder hello = SessionHello.newBuilder().setAccepts(appetite);
            seats.forEach((id, s) -> hello.addResume(MatchCursor.newBuilder().setMatchId(id).setLastSeq(s.lastSeq)));
            c.send(SessionRequest.newBuilder().setHello(hello).build());
            runner.setConnection(c);
            while (stopAfter == 0 || finished < stopAfter) {
                SessionResponse msg = inbox.next();
                switch (msg.getKindCase()) {
                    case WELCOME -> {
                        rc.success();
                        welcome(msg.getWelcome());
                    }
                    case MATCH -> update(c, msg.getMatch());
                    case UPDATES -> msg.getUpdates().getUpdatesList().forEach(u -> update(c, u));
                    case NOTICE -> runner.log.error("notice %s: %s", msg.getNotice().getReason(),
                            msg.getNotice().getMessage());
                    case CHALLENGE -> {
                        ChallengeOffer offer = msg.getChallenge();
                        runner.log.info("declining a challenge from %s", offer.getFrom());
                        c.send(SessionRequest.newBuilder().setAnswer(
                                ChallengeAnswer.newBuilder().setChallengeId(offer.getChallengeId())).build());
                    }
                    default -> { } // settled challenges, and messages newer than this kit
                }
            }
        } finally {
            runner.setConnection(null);
            c.cancel();
        }
    }

    /** Forgets the matches that ended while the client was away (the server no longer lists them). */
    private void welcome(SessionWelcome w) {
        Set<String> live = new HashSet<>(w.getLiveMatchesList());
        seats.keySet().removeIf(id -> {
            if (live.contains(id)) {
                return false;
            }
            runner.log.info("match %s ended while this bot was away", id);
            return true;
        });
        runner.log.info("account %s: %s", w.getAccount(), Log.counted(w.getLiveMatchesCount(), "live match"));
    }

    /** Takes one match's messages; after its MatchOver the match is done. */
    private void update(Connection<SessionRequest> c, MatchUpdate u) {
        Seat s = seats.computeIfAbsent(u.getMatchId(), Seat::new);
        for (PlayResponse msg : u.getMessagesList()) {
            runner.handle(s, c, msg);
            if (msg.hasMatchOver()) {
                seats.remove(u.getMatchId());
                finished++;
                runner.log.info("%s over: %s", runner.log.where(s), runner.log.result(s));
                return;
            }
        }
    }
}
