package president;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import io.grpc.Status;
import io.grpc.Status.Code;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Decides, after a stream failed, whether to connect again and when. */
final class Reconnection {
    /** The waits between reconnection attempts; the kit gives up after the last. */
    static final List<Duration> DELAYS = List.of(Duration.ofMillis(200), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8));

    /** The codes of a lost connection or a busy server, not of a refusal. */
    private static final Set<Code> RETRYABLE = EnumSet.of(Code.UNAVAILABLE, Code.RESOURCE_EXHAUSTED, Code.CANCELLED,
            Code.DEADLINE_EXCEEDED, Code.UNKNOWN, Code.INTERNAL, Code.ABORTED);

    private final String server;
    private final String what; // "seat" or "account": what the token is
    private int failures;
    private boolean welcomed; // the server has welcomed this client at least once

    Reconnection(String server, String what) {
        this.server = server;
        this.what = what;
    }

    /** A stream the server welcomed: the attempts count again from the first delay. */
    void success() {
        failures = 0;
        welcomed = true;
    }

    /** The wait before connecting again after {@code lost}; a KitError when it is time to stop. */
    Duration after(StreamLost lost) throws KitError {
        Throwable error = lost.getCause();
        if (error != null) {
            Status status = Status.fromThrowable(error);
            String reason = reason(error);
            if (reason.equals("DEV_SEAT_WAITING")) {
                throw new DevSeatWaiting("no match yet: " + message(status));
            }
            if (reason.equals("BAD_TOKEN") || reason.equals("MISSING_TOKEN")) {
                throw new KitError("bad " + what + " token: " + server + " refuses it (" + describe(error) + ")");
            }
            if (!welcomed && status.getCode() == Code.UNAVAILABLE && reason.isEmpty()) {
                throw new KitError("cannot reach " + server + ": is the server running, and is the address right? ("
                        + message(status) + ")");
            }
            if (!RETRYABLE.contains(status.getCode())) {
                throw new KitError("the server ended the stream: " + describe(error));
            }
        }
        if (failures >= DELAYS.size()) {
            throw new KitError("lost the connection to " + server + " and could not connect again (" + failures
                    + " attempts): " + lost.getMessage());
        }
        return DELAYS.get(failures++);
    }

    /** The contract's reason in a status's google.rpc.ErrorInfo ("BAD_TOKEN"), or "" when none came. */
    static String reason(Throwable error) {
        com.google.rpc.Status status = StatusProto.fromThrowable(error);
        if (status == null) {
            return "";
        }
        for (Any detail : status.getDetailsList()) {
            if (detail.getTypeUrl().endsWith("/google.rpc.ErrorInfo")) {
                // Debian's common protos (1.16) predate ErrorInfo: its reason, field 1, is read off the wire.
                try {
                    List<ByteString> reason = UnknownFieldSet.parseFrom(detail.getValue()).getField(1)
                            .getLengthDelimitedList();
                    return reason.isEmpty() ? "" : reason.get(0).toStringUtf8();
                } catch (InvalidProtocolBufferException malformed) {
                    return "";
                }
            }
        }
        return "";
    }

    /** A gRPC error as "UNAUTHENTICATED BAD_TOKEN: this token is not a seat's". */
    static String describe(Throwable error) {
        Status status = Status.fromThrowable(error);
        String reason = reason(error);
        return status.getCode() + (reason.isEmpty() ? "" : " " + reason) + ": " + message(status);
    }

    /** A status's description, with what caused it on this side ("io exception: Connection refused: ..."). */
    private static String message(Status status) {
        String text = status.getDescription() == null ? "" : status.getDescription();
        Throwable cause = status.getCause();
        if (cause != null && cause.getMessage() != null && !text.contains(cause.getMessage())) {
            text = text.isEmpty() ? cause.getMessage() : text + ": " + cause.getMessage();
        }
        return text;
    }
}
