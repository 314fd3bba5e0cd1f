package president;

import com.google.protobuf.Timestamp;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import president.v1.President.Act;
import president.v1.President.Action;
import president.v1.President.ActionRejected;
import president.v1.President.ErrorReason;
import president.v1.President.PlayResponse;
import president.v1.President.Prompt;
import president.v1.President.TurnDeadline;
import president.v1.President.Welcome;

/**
 * Plays a bot's seats: it turns each server message into what to do, and decides under the deadline. Its lock
 * guards the seats and the current connection.
 */
final class Runner {
    final Log log;
    private final Decider decider;
    private final ExecutorService waits = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "java-bot-turn");
        thread.setDaemon(true);
        return thread;
    }); // one thread per turn being decided, so that a slow turn delays no other match's messages
    private Connection<?> current; // where acts go out; null while there is none

    Runner(Bot bot, Log log) {
        this.log = log;
        this.decider = new Decider(bot, log);
    }

    synchronized void setConnection(Connection<?> connection) {
        current = connection;
    }

    /** Takes one message of seat {@code s}'s match, as it arrived on {@code c}. */
    synchronized void handle(Seat s, Connection<?> c, PlayResponse msg) {
        switch (msg.getKindCase()) {
            case WELCOME -> {
                Welcome w = msg.getWelcome();
                s.matchId = w.getMatchId();
                s.player = w.getPlayer();
                s.names = w.getNamesList();
                s.rules = w.getRules();
            }
            case EVENT -> s.lastSeq = Math.max(s.lastSeq, msg.getEvent().getSeq());
            case SNAPSHOT -> s.lastSeq = Math.max(s.lastSeq, msg.getSnapshot().getLastSeq());
            case PROMPT -> prompt(s, c, msg.getPrompt());
            case TURN_DEADLINE -> {
                TurnDeadline td = msg.getTurnDeadline();
                Decision decision = s.deciding.get(td.getTurnId());
                if (decision != null && td.hasDeadline()) { // else the decision is over already
                    decision.move(instant(td.getDeadline()));
                }
            }
            case ACTION_ACCEPTED -> s.accepted++;
            case ACTION_REJECTED -> refused(s, c, msg.getActionRejected());
            case MATCH_OVER -> s.result = msg.getMatchOver().getResult();
            default -> { } // a message newer than this kit: nothing it needs
        }
    }

    /** Answers a turn once: a prompt repeated on a new connection gets the act already sent again. */
    private void prompt(Seat s, Connection<?> c, Prompt p) {
        long turn = p.getTurnId();
        Act sent = s.answered.get(turn);
        if (sent != null) {
            if (s.sentOn.getOrDefault(turn, 0) != c.number) {
                s.sentOn.put(turn, c.number);
                send(s.matchId, c, sent);
            }
            return;
        }
        if (s.deciding.containsKey(turn)) {
            return; // still deciding: the act goes out on the connection open when it is decided
        }
        s.forgetBefore(turn);
        s.prompts.put(turn, p);
        Instant deadline = p.hasDeadline() ? instant(p.getDeadline()) : null;
        Decision decision = new Decision(deadline);
        s.deciding.put(turn, decision);
        Turn t = new Turn(s.matchId, s.player, s.names, s.rules, turn, p.getObservation(), p.getLegalActionsList(),
                deadline);
        waits.execute(() -> answer(s, t, decision));
    }

    /** Decides a turn and sends the act on the connection open then (none: the prompt comes again on the next). */
    private void answer(Seat s, Turn t, Decision decision) {
        Decider.Outcome outcome = decider.decide(t, decision);
        Act act = Act.newBuilder().setTurnId(t.id()).setAction(outcome.action()).setFault(outcome.fault()).build();
        Connection<?> c;
        String matchId;
        String where;
        synchronized (this) {
            s.deciding.remove(t.id());
            s.answered.put(t.id(), act);
            c = current;
            if (c != null) {
                s.sentOn.put(t.id(), c.number);
            }
            matchId = s.matchId;
            where = log.where(s);
        }
        log.verbose("%s turn %d: %s", where, t.id(), Text.action(outcome.action()));
        if (c != null) {
            send(matchId, c, act);
        }
    }

    /** Says why the server refused an act, and sends the first legal action instead, once, if it is another. */
    private void refused(Seat s, Connection<?> c, ActionRejected rej) {
        s.rejected++;
        long turn = rej.getTurnId();
        Act sent = s.answered.get(turn);
        String why = Stream.of(rej.getReason(), rej.getIllegalReason(), rej.getMessage()).filter(w -> !w.isEmpty())
                .collect(Collectors.joining(" "));
        log.error("%s turn %d: the server refused %s: %s", log.where(s), turn,
                Text.action(sent == null ? Action.getDefaultInstance() : sent.getAction()), why);
        boolean illegal = rej.getErrorReason() == ErrorReason.ERROR_REASON_ILLEGAL_ACTION
                || rej.getErrorReason() == ErrorReason.ERROR_REASON_MALFORMED;
        Prompt p = s.prompts.get(turn);
        if (!illegal || p == null || s.retried.contains(turn) || p.getLegalActionsCount() == 0) {
            return;
        }
        Action fallback = p.getLegalActions(0);
        if (sent != null && sent.getAction().equals(fallback)) {
            return;
        }
        s.retried.add(turn);
        Act act = Act.newBuilder().setTurnId(turn).setAction(fallback).build();
        s.answered.put(turn, act);
        s.sentOn.put(turn, c.number);
        log.error("%s turn %d: sending the first legal action instead: %s", log.where(s), turn, Text.action(fallback));
        send(s.matchId, c, act);
    }

    /** Writes an act; a connection that is gone is left to the next one, where the prompt comes again. */
    private void send(String matchId, Connection<?> c, Act act) {
        if (!c.act(matchId, act)) {
            log.verbose("the act for turn %d was not sent (the stream is gone); it goes again after the reconnection",
                    act.getTurnId());
        }
    }

    private static Instant instant(Timestamp t) {
        return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
    }
}
