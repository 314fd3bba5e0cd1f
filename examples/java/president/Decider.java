package president;

import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import president.v1.President.Action;
import president.v1.President.BotFault;

/** Asks the bot under a turn's deadline, on a thread of its own: choose is never called twice at once. */
final class Decider {
    /** The action sent for a turn, and the fault the server is told about when it is not the bot's own. */
    record Outcome(Action action, BotFault fault) { }

    private final Bot bot;
    private final Log log;
    private final ExecutorService botThread = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "java-bot-choose");
        thread.setDaemon(true); // a bot stuck in choose does not keep the command from exiting
        return thread;
    });

    Decider(Bot bot, Log log) {
        this.bot = bot;
        this.log = log;
    }

    /**
     * The bot's answer, or turn.legal().get(0) when it is too slow for the deadline, throws, or answers
     * something that is not legal.
     */
    Outcome decide(Turn turn, Decision decision) {
        Future<?> task = botThread.submit(() -> {
            try {
                decision.answered(new Decision.Answer(bot.choose(turn), null));
            } catch (Throwable thrown) { // whatever the bot throws, even an Error, costs only this turn
                decision.answered(new Decision.Answer(null, thrown));
            }
        });
        Action safe = turn.legal().get(0);
        Optional<Decision.Answer> got = decision.await();
        if (got.isEmpty()) {
            task.cancel(true); // a turn asked later is not queued behind it; a bot that checks interrupts stops
            log.error("turn %d: the bot did not answer in time for the deadline; sending the first legal action",
                    turn.id());
            return new Outcome(safe, BotFault.BOT_FAULT_TIMEOUT);
        }
        Decision.Answer answer = got.get();
        if (answer.error() != null) {
            log.error("turn %d: the bot threw %s; sending the first legal action", turn.id(), thrown(answer.error()));
            return new Outcome(safe, BotFault.BOT_FAULT_ERROR);
        }
        if (answer.action() != null && turn.legal().contains(answer.action())) {
            return new Outcome(answer.action(), BotFault.BOT_FAULT_UNSPECIFIED);
        }
        log.error("turn %d: the bot answered %s, which is not one of the legal actions; sending the first legal action",
                turn.id(), answer.action() == null ? "null" : "\"" + Text.action(answer.action()) + "\"");
        return new Outcome(safe, BotFault.BOT_FAULT_INVALID);
    }

    /** An exception in one line, with the bot's line that threw it: "IllegalStateException: x (at MyBot.java:9)". */
    static String thrown(Throwable error) {
        return Arrays.stream(error.getStackTrace())
                .filter(frame -> !frame.getClassName().matches("(java|jdk|sun|com\\.google|io\\.grpc|president)\\..*"))
                .findFirst()
                .map(frame -> error + " (at " + frame + ")")
                .orElse(error.toString());
    }
}
