package president;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import president.v1.President.Appetite;
import president.v1.PresidentServiceGrpc;
import president.v1.PresidentServiceGrpc.PresidentServiceStub;

/** The bot's command: it plays a seat on the Play stream, or every match of an account at once on a Session. */
public final class Kit {
    private Kit() {}

    static final String USAGE = """
            usage: bot --server HOST:PORT --token SEAT_TOKEN             one seat, until its match is over
                   bot --server HOST:PORT --token DEV_SEAT_TOKEN --again a dev seat: its match, then each next one
                   bot --server HOST:PORT --account-token ACCOUNT_TOKEN  every match of an account, many at once

              --server HOST:PORT   the server (default $PRESIDENT_SERVER, else localhost:50051)
              --token T            a seat token: play that one seat (default $PRESIDENT_TOKEN)
              --account-token T    an account token: play every match of the account, many at once, until
                                   stopped (default $PRESIDENT_ACCOUNT_TOKEN)
              --name N             with --token: the name a seat created without one shows (default java-bot)
              --again              with --token: a dev seat's token (make run's seat 0): play each next match of
                                   the seat until stopped
              --max-matches N      with --account-token: the most matches at once from the arena (default 4)
              --arena              with --account-token: let the arena put the bot in rated matches
              --matches N          with --account-token: stop after N finished matches (default 0: until stopped)
              --verbose            log every move
            """;

    private static final Set<String> OPTIONS = Set.of("server", "token", "account-token", "name", "max-matches",
            "matches");
    private static final Set<String> SWITCHES = Set.of("arena", "verbose", "again");

    /** The gRPC key of the token: "authorization: Bearer TOKEN". */
    private static final Metadata.Key<String> AUTHORIZATION =
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    /** How long Ctrl-C or SIGTERM waits for the bot to say what it did before the command exits. */
    private static final long STOP_WAIT_S = 3;

    /** gRPC's and Netty's own loggers, held: java.util.logging forgets the level of a logger nobody holds. */
    private static final Logger[] LIBRARY_LOGGERS = {Logger.getLogger("io.grpc"), Logger.getLogger("io.netty")};

    /** Where and how a bot plays. Exactly one of token and accountToken is set. */
    record Config(String server, String token, String accountToken, String name, int maxMatches, boolean arena,
            int stopAfter, boolean verbose, boolean again) { }

    /** An argument the command cannot take, said in one line. */
    static final class BadArguments extends Exception {
        private static final long serialVersionUID = 1L;

        BadArguments(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code bot} as a command and exits: 0 when done (or stopped, on a Session), 1 on an error, 2 on bad
     * arguments. Every error is one line on stderr.
     */
    public static void main(String[] args, Bot bot) {
        Stop stop = new Stop();
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        // Ctrl-C and SIGTERM start the JVM's shutdown: the bot stops, says what it did, and exits with its status.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.stop();
            int status;
            try {
                status = exit.get(STOP_WAIT_S, TimeUnit.SECONDS);
            } catch (Exception tooLate) {
                status = 1;
            }
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(status);
        }, "java-bot-stop"));
        int status = status(args, System.getenv(), bot, stop, System.out, System.err);
        exit.complete(status);
        System.exit(status);
    }

    static int status(String[] args, Map<String, String> env, Bot bot, Stop stop, PrintStream out, PrintStream err) {
        Config cfg;
        try {
            cfg = parse(args, env);
        } catch (BadArguments bad) {
            err.println("java-bot: " + bad.getMessage() + " (see --help)");
            return 2;
        }
        if (cfg == null) {
            out.print(USAGE);
            return 0;
        }
        for (Logger logger : LIBRARY_LOGGERS) {
            logger.setLevel(cfg.verbose() ? Level.WARNING : Level.OFF); // the kit says what went wrong itself
        }
        try {
            run(cfg, bot, stop, new Log(out, err, cfg.verbose(), cfg.token().isEmpty()));
        } catch (KitError error) {
            err.println("java-bot: error: " + error.getMessage());
            return 1;
        }
        return 0;
    }

    /** The command's arguments, over the environment's defaults; null for --help. */
    static Config parse(String[] args, Map<String, String> env) throws BadArguments {
        Map<String, String> values = new HashMap<>();
        Set<String> switches = new HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                return null;
            }
            if (!arg.startsWith("--")) {
                throw new BadArguments("unexpected argument " + arg);
            }
            String name = arg.substring(2);
            String value = null;
            int equals = name.indexOf('=');
            if (equals >= 0) {
                value = name.substring(equals + 1);
                name = name.substring(0, equals);
            }
            if (SWITCHES.contains(name) && value == null) {
                switches.add(name);
            } else if (!OPTIONS.contains(name)) {
                throw new BadArguments("unknown option --" + name);
            } else if (value != null) {
                values.put(name, value);
            } else if (i + 1 < args.length) {
                values.put(name, args[++i]);
            } else {
                throw new BadArguments("--" + name + " needs a value");
            }
        }
        String token = values.getOrDefault("token", env.getOrDefault("PRESIDENT_TOKEN", ""));
        String accountToken = values.getOrDefault("account-token", env.getOrDefault("PRESIDENT_ACCOUNT_TOKEN", ""));
        if (token.isEmpty() == accountToken.isEmpty()) {
            throw new BadArguments("give --token SEAT_TOKEN or --account-token ACCOUNT_TOKEN");
        }
        if (switches.contains("again") && token.isEmpty()) {
            throw new BadArguments("--again plays a dev seat's --token match after match");
        }
        String server = values.getOrDefault("server", env.getOrDefault("PRESIDENT_SERVER", ""));
        return new Config(server.isEmpty() ? "localhost:50051" : server, token, accountToken,
                values.getOrDefault("name", "java-bot"), count(values, "max-matches", 4), switches.contains("arena"),
                count(values, "matches", 0), switches.contains("verbose"), switches.contains("again"));
    }

    private static int count(Map<String, String> values, String name, int otherwise) throws BadArguments {
        String value = values.get(name);
        if (value == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // said below
        }
        throw new BadArguments("--" + name + " " + value + ": give a number, 0 or more");
    }

    /** Plays as {@code cfg} says until it is done: its seat's match is over, or (on a Session) a stop. */
    static void run(Config cfg, Bot bot, Stop stop, Log log) throws KitError {
        ManagedChannel channel;
        try {
            channel = NettyChannelBuilder.forTarget(cfg.server()).usePlaintext().build();
        } catch (IllegalArgumentException bad) {
            throw new KitError("bad server address \"" + cfg.server() + "\": " + bad.getMessage());
        }
        try {
            Runner runner = new Runner(bot, log);
            boolean seat = !cfg.token().isEmpty();
            Metadata headers = new Metadata();
            headers.put(AUTHORIZATION, "Bearer " + (seat ? cfg.token() : cfg.accountToken()));
            PresidentServiceStub stub = PresidentServiceGrpc.newStub(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
            if (seat) {
                playSeats(cfg, new PlayClient(runner, stub, stop), stop, log);
                return;
            }
            Appetite appetite = Appetite.newBuilder().setMaxMatches(cfg.maxMatches()).setArena(cfg.arena()).build();
            int finished = new SessionClient(runner, stub, stop).playAccount(cfg.server(), appetite, cfg.stopAfter());
            log.info("done: %s finished", Log.counted(finished, "match"));
        } finally {
            channel.shutdownNow();
        }
    }

    /** Plays the seat token's match; with --again, each next match of the dev seat too, until a stop. */
    private static void playSeats(Config cfg, PlayClient client, Stop stop, Log log) throws KitError {
        int played = 0;
        boolean waiting = false;
        while (true) {
            Seat s = null;
            try {
                s = client.playSeat(cfg.server(), cfg.name());
            } catch (DevSeatWaiting notYet) {
                if (!cfg.again()) {
                    throw notYet;
                }
                if (!waiting) {
                    log.info("%s (--again waits for it; Ctrl-C stops)", notYet.getMessage());
                }
                waiting = true;
                if (!stop.sleep(Duration.ofSeconds(1))) {
                    continue;
                }
            } catch (KitError error) {
                if (!cfg.again() || !stop.stopped()) {
                    throw error;
                }
            }
            if (s == null) { // --again, stopped
                log.info("stopped after %s", Log.counted(played, "match"));
                return;
            }
            log.info("match over: %s; %s accepted, %d rejected", log.result(s), Log.counted(s.accepted, "action"),
                    s.rejected);
            if (!cfg.again()) {
                return;
            }
            played++;
            waiting = false;
        }
    }
}
