package president;

import com.google.protobuf.Timestamp;
import io.grpc.stub.StreamObserver;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import president.v1.President.Act;
import president.v1.President.Action;
import president.v1.President.ActionRejected;
import president.v1.President.BotFault;
import president.v1.President.Card;
import president.v1.President.ErrorReason;
import president.v1.President.Observation;
import president.v1.President.PassAction;
import president.v1.President.PlayAction;
import president.v1.President.PlayResponse;
import president.v1.President.Prompt;
import president.v1.President.Rank;
import president.v1.President.Rules;
import president.v1.President.Suit;

/** The kit's own tests: every static method named test*, run by main; no test library needed. */
public final class KitTest {
    private KitTest() {}

    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());
    private static final Log QUIET = new Log(NOWHERE, NOWHERE, false, false);
    private static final Action PASS = Action.newBuilder().setPassTurn(PassAction.getDefaultInstance()).build();

    public static void main(String[] args) throws IllegalAccessException {
        long started = System.nanoTime();
        List<Method> tests = Arrays.stream(KitTest.class.getDeclaredMethods())
                .filter(m -> m.getName().startsWith("test") && Modifier.isStatic(m.getModifiers()))
                .sorted(Comparator.comparing(Method::getName)).toList();
        int failed = 0;
        for (Method test : tests) {
            try {
                test.invoke(null);
                System.out.println("PASS  " + test.getName());
            } catch (InvocationTargetException e) {
                failed++;
                System.out.println("FAIL  " + test.getName() + ": " + e.getCause());
            }
        }
        String took = String.format("%.1f s", (System.nanoTime() - started) / 1e9);
        if (failed > 0) {
            System.out.println("FAIL  president: " + failed + " of " + tests.size() + " tests failed, " + took);
            System.exit(1);
        }
        System.out.println("ok    president: " + tests.size() + " tests, " + took);
        System.exit(0); // the bots left stuck by the deadline tests must not keep the JVM up
    }

    private static void check(boolean ok, String what, Object... args) {
        if (!ok) {
            throw new AssertionError(String.format(what, args));
        }
    }

    private static Action play(Rank rank, Suit... suits) {
        PlayAction.Builder play = PlayAction.newBuilder().setRank(rank);
        for (Suit suit : suits) {
            play.addCards(Card.newBuilder().setRank(rank).setSuit(suit));
        }
        return Action.newBuilder().setPlay(play).build();
    }

    private static Turn following(Instant deadline) {
        Observation obs = Observation.newBuilder().addAllHandSizes(List.of(5, 3, 0, 8))
                .addRankOrder(Rank.RANK_THREE).addRankOrder(Rank.RANK_TWO).build();
        return new Turn("m1", 0, List.of(), Rules.getDefaultInstance(), 7, obs,
                List.of(play(Rank.RANK_FIVE, Suit.SUIT_CLUBS), play(Rank.RANK_TWO, Suit.SUIT_HEARTS), PASS), deadline);
    }

    /** A bot too slow for any deadline: it answers only when released. */
    private static Bot stuck(CountDownLatch release) {
        return turn -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return turn.legal().get(1);
        };
    }

    static void testHelpersReadTheLegalActionsInTheirOrder() {
        Turn turn = following(null);
        check(Text.action(turn.lowestPlay().orElseThrow()).equals("play 5C as 5"), "lowestPlay %s", turn.lowestPlay());
        check(turn.canPass() && turn.pass().orElseThrow() == PASS && turn.plays().size() == 2, "pass, plays");
        check(turn.cardsLeft(1) == 3 && turn.cardsLeft(9) == 0 && turn.topRank() == Rank.RANK_TWO,
                "cardsLeft(1) %d, cardsLeft(9) %d, topRank %s", turn.cardsLeft(1), turn.cardsLeft(9), turn.topRank());
        Turn leading = new Turn("m1", 0, List.of(), Rules.getDefaultInstance(), 1, Observation.getDefaultInstance(),
                List.of(play(Rank.RANK_FOUR, Suit.SUIT_SPADES)), null);
        check(!leading.canPass() && leading.pass().isEmpty(), "a leader may not pass");
    }

    static void testActionsAreWrittenAsTheEngineWritesThem() {
        Action jokers = Action.newBuilder().setPlay(PlayAction.newBuilder().setRank(Rank.RANK_ACE)
                .setDeclared(Rank.RANK_ACE).addCards(Card.newBuilder().setRank(Rank.RANK_JOKER))).build();
        String text = Text.action(play(Rank.RANK_TEN, Suit.SUIT_CLUBS, Suit.SUIT_DIAMONDS)) + ", " + Text.action(PASS)
                + ", " + Text.action(jokers);
        check(text.equals("play 10C 10D as 10, pass, play JK as A (declared)"), "got %s", text);
    }

    static void testTheBotsOwnLegalAnswerIsSent() {
        Turn turn = following(null);
        Decider.Outcome got = new Decider(t -> t.legal().get(2), QUIET).decide(turn, new Decision(null));
        check(got.action() == PASS && got.fault() == BotFault.BOT_FAULT_UNSPECIFIED, "got %s", got);
        Action equal = PASS.toBuilder().build(); // an equal message, not the same object
        got = new Decider(t -> equal, QUIET).decide(turn, new Decision(null));
        check(got.action().equals(PASS) && got.fault() == BotFault.BOT_FAULT_UNSPECIFIED, "an equal one: %s", got);
    }

    static void testASlowBotIsAnsweredForBeforeTheDeadline() {
        CountDownLatch release = new CountDownLatch(1);
        Turn turn = following(Instant.now().plusSeconds(2));
        Decider.Outcome got = new Decider(stuck(release), QUIET).decide(turn, new Decision(turn.deadline()));
        check(Instant.now().isBefore(turn.deadline()), "answered after the deadline");
        check(got.action() == turn.legal().get(0) && got.fault() == BotFault.BOT_FAULT_TIMEOUT, "got %s", got);
        release.countDown();
    }

    static void testATurnDeadlineBoundsTheDecisionUnderWay() {
        CountDownLatch release = new CountDownLatch(1);
        Turn turn = following(null); // prompted without a deadline: the clock starts later
        Decision decision = new Decision(null);
        Instant deadline = Instant.now().plusSeconds(2);
        decision.move(deadline);
        Decider.Outcome got = new Decider(stuck(release), QUIET).decide(turn, decision);
        check(Instant.now().isBefore(deadline) && got.fault() == BotFault.BOT_FAULT_TIMEOUT, "got %s", got);
        release.countDown();
    }

    static void testAThrowOrAnIllegalAnswerIsReplacedAndReported() {
        Map<BotFault, Bot> cases = Map.of(
                BotFault.BOT_FAULT_ERROR, t -> {
                    throw new IllegalStateException("no idea");
                },
                BotFault.BOT_FAULT_INVALID, t -> play(Rank.RANK_ACE, Suit.SUIT_CLUBS));
        cases.forEach((want, bot) -> {
            Turn turn = following(null);
            Decider.Outcome got = new Decider(bot, QUIET).decide(turn, new Decision(null));
            check(got.action() == turn.legal().get(0) && got.fault() == want, "want %s: got %s", want, got);
        });
        IllegalStateException thrown = new IllegalStateException("no idea");
        thrown.setStackTrace(new StackTraceElement[] {new StackTraceElement("java.util.List", "get", null, 1),
            new StackTraceElement("MyBot", "choose", "MyBot.java", 12),
            new StackTraceElement("president.Decider", "decide", "Decider.java", 40)});
        String line = Decider.thrown(thrown);
        check(line.equals("java.lang.IllegalStateException: no idea (at MyBot.choose(MyBot.java:12))"), "got %s", line);
    }

    /** Acts written on a stream, in order. */
    private static final class Recorder implements StreamObserver<Act> {
        final LinkedBlockingQueue<Act> acts = new LinkedBlockingQueue<>();

        @Override
        public void onNext(Act act) {
            acts.add(act);
        }

        @Override
        public void onError(Throwable error) { }

        @Override
        public void onCompleted() { }

        Act next() throws InterruptedException {
            Act act = acts.poll(5, TimeUnit.SECONDS);
            check(act != null, "no act within 5 s");
            return act;
        }
    }

    private static PlayResponse prompt(Turn turn) {
        return PlayResponse.newBuilder().setPrompt(Prompt.newBuilder().setTurnId(turn.id()).setObservation(turn.obs())
                .addAllLegalActions(turn.legal()).setDeadline(Timestamp.newBuilder()
                        .setSeconds(Instant.now().getEpochSecond() + 10))).build();
    }

    static void testARepeatedPromptGetsTheActAlreadySent() throws InterruptedException {
        Runner runner = new Runner(t -> t.legal().get(1), QUIET);
        Seat seat = new Seat("m1");
        Recorder first = new Recorder();
        Connection<Act> one = new Connection<>(1, first, (matchId, act) -> act);
        runner.setConnection(one);
        PlayResponse asked = prompt(following(null));
        runner.handle(seat, one, asked);
        Act sent = first.next();
        check(sent.getTurnId() == 7 && sent.getAction().equals(following(null).legal().get(1)), "sent %s", sent);
        runner.handle(seat, one, asked);
        check(first.acts.poll(200, TimeUnit.MILLISECONDS) == null, "the same prompt on the same stream: sent twice");
        Recorder second = new Recorder();
        Connection<Act> two = new Connection<>(2, second, (matchId, act) -> act);
        runner.setConnection(two);
        runner.handle(seat, two, asked);
        check(second.next().equals(sent), "asked again after a resume: another act");
    }

    static void testARefusedActIsReplacedByTheFirstLegalActionOnce() throws InterruptedException {
        Runner runner = new Runner(t -> t.legal().get(1), QUIET);
        Seat seat = new Seat("m1");
        Recorder stream = new Recorder();
        Connection<Act> c = new Connection<>(1, stream, (matchId, act) -> act);
        runner.setConnection(c);
        runner.handle(seat, c, prompt(following(null)));
        stream.next();
        PlayResponse refusal = PlayResponse.newBuilder().setActionRejected(ActionRejected.newBuilder().setTurnId(7)
                .setReason("ILLEGAL_ACTION").setErrorReason(ErrorReason.ERROR_REASON_ILLEGAL_ACTION)).build();
        runner.handle(seat, c, refusal);
        Act retry = stream.next();
        check(retry.getAction().equals(following(null).legal().get(0)), "the retry: %s", retry);
        runner.handle(seat, c, refusal);
        check(stream.acts.poll(200, TimeUnit.MILLISECONDS) == null && seat.rejected == 2, "a second retry");
    }

    static void testALostConnectionIsRetriedUntilTheLastDelay() throws KitError {
        Reconnection rc = new Reconnection("127.0.0.1:1", "seat");
        List<Duration> waits = new ArrayList<>();
        for (int i = 0; i < Reconnection.DELAYS.size(); i++) {
            waits.add(rc.after(new StreamLost(null)));
        }
        check(waits.equals(Reconnection.DELAYS), "waits %s", waits);
        try {
            rc.after(new StreamLost(null));
            check(false, "no giving up after the last delay");
        } catch (KitError expected) {
            check(expected.getMessage().startsWith("lost the connection to 127.0.0.1:1"), "%s", expected);
        }
    }

    static void testCountsTakeTheirNounInTheRightNumber() {
        String got = Log.counted(1, "match") + ", " + Log.counted(3, "match") + ", " + Log.counted(0, "action");
        check(got.equals("1 match, 3 matches, 0 actions"), "got %s", got);
        check(Log.seconds(Duration.ofMillis(200)).equals("0.2 s") && Log.seconds(Duration.ofSeconds(8)).equals("8 s"),
                "seconds");
    }

    static void testArgumentsComeFromTheCommandLineOrTheEnvironment() throws Kit.BadArguments {
        Kit.Config cfg = Kit.parse(new String[] {"--account-token=A", "--max-matches", "2", "--arena"},
                Map.of("PRESIDENT_SERVER", "h:1"));
        check(cfg.server().equals("h:1") && cfg.accountToken().equals("A") && cfg.maxMatches() == 2 && cfg.arena()
                && cfg.token().isEmpty() && cfg.stopAfter() == 0, "got %s", cfg);
        cfg = Kit.parse(new String[] {}, Map.of("PRESIDENT_TOKEN", "T"));
        check(cfg.server().equals("localhost:50051") && cfg.token().equals("T") && cfg.name().equals("java-bot")
                && !cfg.again(), "got %s", cfg);
        check(Kit.parse(new String[] {"--token", "T", "--again"}, Map.of()).again(), "--again");
        for (String[] bad : List.of(new String[] {"--turbo"}, new String[] {"--token"}, new String[] {"--token", "T",
            "--account-token", "A"}, new String[] {"--token", "T", "--matches", "x"},
            new String[] {"--account-token", "A", "--again"})) {
            try {
                Kit.parse(bad, Map.of());
                check(false, "%s taken", List.of(bad));
            } catch (Kit.BadArguments expected) {
                check(!expected.getMessage().isEmpty(), "no message");
            }
        }
    }
}
