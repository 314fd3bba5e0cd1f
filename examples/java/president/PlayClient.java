package president;

import io.grpc.stub.StreamObserver;
import java.time.Duration;
import president.v1.President.Hello;
import president.v1.President.PlayRequest;
import president.v1.President.PlayResponse;
import president.v1.PresidentServiceGrpc.PresidentServiceStub;

/** One seat on the Play stream until MatchOver, resuming after lost connections. */
final class PlayClient {
    private final Runner runner;
    private final PresidentServiceStub stub; // carries the seat's token
    private final Stop stop;

    PlayClient(Runner runner, PresidentServiceStub stub, Stop stop) {
        this.runner = runner;
        this.stub = stub;
        this.stop = stop;
    }

    /** The seat once its match is over. */
    Seat playSeat(String server, String name) throws KitError {
        Seat s = new Seat("");
        Reconnection rc = new Reconnection(server, "seat");
        for (int number = 1; ; number++) {
            try {
                stream(name, s, number, rc);
                return s;
            } catch (StreamLost lost) {
                if (stop.stopped()) {
                    throw new KitError("stopped before the match was over");
                }
                Duration wait = rc.after(lost);
                runner.log.info("%s: the connection was lost (%s); reconnecting in %s to resume after event %d",
                        runner.log.where(s), lost.getMessage(), Log.seconds(wait), s.lastSeq);
                if (stop.sleep(wait)) {
                    throw new KitError("stopped before the match was over");
                }
            }
        }
    }

    /** One Play stream, from Hello to MatchOver (a return) or to its failure. */
    private void stream(String name, Seat s, int number, Reconnection rc) throws StreamLost {
        Inbox<PlayResponse> inbox = new Inbox<>(PlayResponse.class);
        StreamObserver<PlayRequest> requests = stub.play(inbox);
        Connection<PlayRequest> c = new Connection<>(number, requests,
                (matchId, act) -> PlayRequest.newBuilder().setAct(act).build());
        stop.interrupting(inbox::interrupt);
        boolean over = false;
        try {
            c.send(PlayRequest.newBuilder().setHello(Hello.newBuilder().setLastSeq(s.lastSeq).setName(name)).build());
            runner.setConnection(c);
            while (!over) {
                PlayResponse msg = inbox.next();
                if (msg.hasWelcome()) {
                    rc.success();
                    runner.log.info("seated in match %s as player %d of %d", msg.getWelcome().getMatchId(),
                            msg.getWelcome().getPlayer(), msg.getWelcome().getNamesCount());
                }
                runner.handle(s, c, msg);
                over = msg.hasMatchOver();
            }
            c.finish();
        } finally {
            runner.setConnection(null);
            if (!over) {
                c.cancel();
            }
        }
    }
}
