// The kit's inside, shared by its files and its tests; a bot needs only president.h.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/sync_stream.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "president/president.h"

namespace president {

using Clock = std::chrono::system_clock;  // the server's deadlines are wall-clock times

// Kept back from a deadline for the answer to travel to the server.
inline constexpr std::chrono::milliseconds kSafetyMargin{250};
// The least time a bot is given, however close the deadline.
inline constexpr std::chrono::milliseconds kLeastBudget{50};
// How many recent turns a seat remembers: a prompt repeated after a resume, or a late refusal, finds what was sent.
inline constexpr uint64_t kPromptsKept = 8;
// The waits between reconnection attempts; the kit gives up after the last.
inline const std::vector<std::chrono::milliseconds> kRetryDelays{
    std::chrono::milliseconds(200), std::chrono::milliseconds(500), std::chrono::seconds(1),
    std::chrono::seconds(2), std::chrono::seconds(4), std::chrono::seconds(8)};

// What stops the bot, in one line for a person.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A dev seat's token between two matches (DEV_SEAT_WAITING): --again asks again.
class DevSeatWaiting : public Error {
 public:
  using Error::Error;
};

// Bad arguments, in one line for a person.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The parts streamed into one string.
template <class... Parts>
std::string Cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

// A count with its noun in the right number: "1 match", "3 matches".
std::string Counted(int n, const std::string& noun);
// A wait for a log line: "0.2 s".
std::string Seconds(std::chrono::milliseconds wait);
// A Timestamp of the contract as a time point.
Clock::time_point TimeOf(const google::protobuf::Timestamp& stamp);

// ---------------------------------------------------------------------------- errors

// A status code as the contract writes it: UNAUTHENTICATED, RESOURCE_EXHAUSTED.
std::string CodeName(grpc::StatusCode code);
// The contract's reason in a status's google.rpc.ErrorInfo ("BAD_TOKEN"), or "" when none came.
std::string ErrorReason(const grpc::Status& status);
// A status as "UNAUTHENTICATED BAD_TOKEN: this token is not a seat's"; an OK status is a stream the server
// ended without one.
std::string Describe(const grpc::Status& status);

// Decides, after a stream failed, whether to connect again and when.
class Reconnection {
 public:
  Reconnection(std::string server, std::string what) : server_(std::move(server)), what_(std::move(what)) {}
  // A stream the server welcomed: the attempts count again from the first delay.
  void Success();
  // The wait before connecting again after a stream ended with `status` (OK: the server ended it without a
  // status, before its end: a lost connection). Throws Error when it is not worth trying again.
  std::chrono::milliseconds After(const grpc::Status& status);

 private:
  std::string server_;
  std::string what_;  // "seat" or "account": what the token is
  size_t failures_ = 0;
  bool welcomed_ = false;  // the server has welcomed this client at least once
};

// ---------------------------------------------------------------------------- the bot under a deadline

// One turn being decided: its deadline, which a TurnDeadline may set or move, and the bot's answer once it comes.
struct Decision {
  explicit Decision(Turn turn) : turn(std::move(turn)), deadline(this->turn.deadline) {}
  void Move(Clock::time_point to);

  const Turn turn;
  std::mutex mu;
  std::condition_variable changed;
  std::optional<Clock::time_point> deadline;
  int moves = 0;           // how often the deadline was set or moved
  bool answered = false;   // the bot returned (or threw)
  bool abandoned = false;  // the fallback went out: the bot's answer, if it ever comes, is dropped
  Action answer;
  std::optional<std::string> thrown;  // what the bot threw
};

// The one thread the bot runs in, so that Choose is never called twice at once, and a call that outlives its
// turn's deadline finishes on its own while the kit answers without it.
class BotThread {
 public:
  explicit BotThread(Bot& bot);
  ~BotThread();  // the thread ends once idle
  BotThread(const BotThread&) = delete;
  BotThread& operator=(const BotThread&) = delete;
  void Ask(std::shared_ptr<Decision> decision);

 private:
  struct Queue {
    std::mutex mu;
    std::condition_variable ready;
    std::deque<std::shared_ptr<Decision>> waiting;
    bool closed = false;
  };
  std::shared_ptr<Queue> queue_;  // shared with the thread, which may outlive this object
};

class Logger;

// Asks the bot, and answers turn.legal[0] instead when it is too slow for the deadline (which may move while it
// thinks), throws, or answers something that is not legal; the fault says which.
std::pair<Action, v1::BotFault> Decide(BotThread& bot, const std::shared_ptr<Decision>& decision, Logger& log);

// ---------------------------------------------------------------------------- the seat protocol

// One match's side of the seat protocol: the same messages come on a Play stream and in a Session.
struct Seat {
  explicit Seat(std::string match_id) : match_id(std::move(match_id)) {}
  std::string match_id;
  uint32_t player = 0;
  std::vector<std::string> names;
  Rules rules;
  uint64_t last_seq = 0;                    // the last event seen: where a new connection resumes
  std::map<uint64_t, v1::Prompt> prompts;   // by turn id
  std::map<uint64_t, v1::Act> answered;     // the act sent for each turn
  std::map<uint64_t, int> sent_on;          // the connection each act went out on
  std::map<uint64_t, std::shared_ptr<Decision>> deciding;  // turns the bot is deciding
  std::set<uint64_t> retried;               // turns whose refused act was replaced once
  int accepted = 0;
  int rejected = 0;
  std::optional<v1::MatchResult> result;
};

// The kit's lines: progress on stdout, problems on stderr, moves with --verbose.
class Logger {
 public:
  Logger(std::ostream& out, std::ostream& err, bool moves, bool session)
      : out_(out), err_(err), moves_(moves), session_(session) {}
  void Info(const std::string& line);
  void Problem(const std::string& line);
  void Verbose(const std::string& line);
  // A seat in a log line: "p2", or "match m1 p2" on a Session.
  std::string Where(const Seat& seat) const;
  // A finished match's result: "winner bot (player 1), totals 1,4,2,3".
  std::string Result(const Seat& seat) const;

 private:
  std::mutex mu_;
  std::ostream& out_;
  std::ostream& err_;
  bool moves_;
  bool session_;
};

// One stream to the server: a Play stream, or a Session carrying every match.
class Connection {
 public:
  explicit Connection(int number) : number(number) {}
  virtual ~Connection() = default;
  // Queues an act; never blocks. An act that cannot go out is answered again on the next connection, where
  // its prompt comes again.
  virtual void Act(const std::string& match_id, const v1::Act& act) = 0;
  // Ends the call from any thread: its reads fail.
  virtual void Cancel() = 0;
  const int number;
};

// A bidirectional call: reads on the caller's thread, writes in order on a thread of its own, so that reading
// never waits for a write (a server that is held back stops reading until its answers are read).
template <class Request, class Response>
class Stream : public Connection {
 public:
  using Opener = std::function<std::unique_ptr<grpc::ClientReaderWriterInterface<Request, Response>>(
      grpc::ClientContext*)>;
  using Wrap = Request (*)(const std::string& match_id, const v1::Act& act);

  Stream(int number, const std::string& token, const Opener& open, Wrap wrap, Logger& log)
      : Connection(number), wrap_(wrap), log_(log) {
    context_.AddMetadata("authorization", "Bearer " + token);
    call_ = open(&context_);
  }
  ~Stream() override {
    Cancel();
    End();
  }

  // Sends the first message, then whatever is queued; false when the call failed already.
  bool Start(const Request& hello) {
    if (!call_->Write(hello)) return false;
    writer_ = std::thread([this] { Write(); });
    return true;
  }
  bool Read(Response* response) { return call_->Read(response); }
  void Send(Request request) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    queue_.push_back(std::move(request));
    ready_.notify_one();
  }
  void Act(const std::string& match_id, const v1::Act& act) override { Send(wrap_(match_id, act)); }
  void Cancel() override { context_.TryCancel(); }
  // The call's status, once its reads are over or it was cancelled.
  grpc::Status End() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ended_) return status_;
      ended_ = closed_ = true;
      ready_.notify_one();
    }
    if (writer_.joinable()) writer_.join();
    status_ = call_->Finish();
    return status_;
  }

 private:
  void Write() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ready_.wait(lock, [this] { return closed_ || !queue_.empty(); });
      if (closed_) return;
      Request next = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      bool written = call_->Write(next);
      lock.lock();
      if (!written) {
        log_.Verbose(Cat("connection ", number, " is gone: ", Counted(int(queue_.size()) + 1, "message"),
                         " not sent; a turn asked again on the next connection is answered there"));
        closed_ = true;
        queue_.clear();
        return;
      }
    }
  }

  Wrap wrap_;
  Logger& log_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriterInterface<Request, Response>> call_;
  std::thread writer_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Request> queue_;
  bool closed_ = false;
  bool ended_ = false;
  grpc::Status status_;
};

using PlayStream = Stream<v1::PlayRequest, v1::PlayResponse>;
using SessionStream = Stream<v1::SessionRequest, v1::SessionResponse>;

// What a Session client keeps across its connections.
struct Account {
  std::map<std::string, std::shared_ptr<Seat>> seats;  // live matches, by id
  int finished = 0;
};

// Plays a bot's seats: it turns each server message into what to do, and decides under the deadline.
class Runner : public std::enable_shared_from_this<Runner> {
 public:
  Runner(Bot& bot, std::ostream& out, std::ostream& err, bool verbose, bool session)
      : log_(out, err, verbose, session), bot_(bot) {}
  Logger& log() { return log_; }

  // Plays the seat of a seat token on the Play stream until MatchOver, resuming after lost connections.
  std::shared_ptr<Seat> PlaySeat(const std::shared_ptr<grpc::Channel>& channel, const std::string& server,
                                 const std::string& token, const std::string& name);
  // Plays every match of an account on one Session until stopped (or `stop_after` matches are over, when not
  // 0), resuming each live match after a lost connection; how many matches finished.
  int PlayAccount(const std::shared_ptr<grpc::Channel>& channel, const std::string& server, const std::string& token,
                  const v1::Appetite& appetite, int stop_after);
  // Stops playing (Ctrl-C, SIGTERM): the current call is cancelled, and no other is made.
  void Stop();
  // Takes one message of seat's match, as it arrived on connection.
  void Handle(const std::shared_ptr<Seat>& seat, const std::shared_ptr<Connection>& connection,
              const v1::PlayResponse& message);
  // Makes `connection` the one acts go out on (null while there is none); cancelled at once when stopped.
  void SetConnection(std::shared_ptr<Connection> connection);
  // Waits (before reconnecting, or asking again); false when stopped meanwhile.
  bool Pause(std::chrono::milliseconds wait);
  bool Stopped();

 private:
  // One Play stream, from Hello to MatchOver (none) or to its failure (its status).
  std::optional<grpc::Status> PlayOnce(const PlayStream::Opener& open, const std::string& token,
                                       const std::string& name, const std::shared_ptr<Seat>& seat, int number,
                                       Reconnection& rc);
  // One Session, until it fails (its status) or `stop_after` matches are over (none).
  std::optional<grpc::Status> SessionOnce(const SessionStream::Opener& open, const std::string& token,
                                          const v1::Appetite& appetite, Account& account, int number,
                                          Reconnection& rc, int stop_after);
  void Welcome(Account& account, const v1::SessionWelcome& welcome);
  void Update(Account& account, const std::shared_ptr<Connection>& connection, const v1::MatchUpdate& update);
  void Prompt(const std::shared_ptr<Seat>& seat, const std::shared_ptr<Connection>& connection,
              const v1::Prompt& prompt);
  void Answer(const std::shared_ptr<Seat>& seat, const std::shared_ptr<Decision>& decision);
  void Refused(const std::shared_ptr<Seat>& seat, const std::shared_ptr<Connection>& connection,
               const v1::ActionRejected& rejected);
  Logger log_;
  BotThread bot_;
  std::mutex mu_;  // guards the seats, the current connection and `stopped_`
  std::condition_variable stopping_;
  bool stopped_ = false;
  std::shared_ptr<Connection> current_;
};

// ---------------------------------------------------------------------------- the command

// Where and how a bot plays. Exactly one of token and account_token is set.
struct Config {
  std::string server;         // HOST:PORT
  std::string token;          // a seat token: play that seat on the Play stream until its match is over
  std::string account_token;  // an account token: play every match of the account on one Session until stopped
  std::string name = "cpp-bot";  // the name a seat created without one shows (Play)
  bool again = false;         // token is a dev seat's: play each next match of the seat until stopped
  uint32_t max_matches = 4;   // the most matches at once the arena gives the account (Session)
  bool arena = false;         // let the server's arena put the account in rated matches (Session)
  int stop_after = 0;         // stop after this many finished matches (Session; 0: play until stopped)
  bool verbose = false;       // log every move
  bool help = false;          // print the options and exit
};

extern const char* const kUsage;

// The command line (after the program's name), with the environment's defaults; UsageError when it is wrong.
Config ParseArgs(const std::vector<std::string>& args);
// Plays as config says until it is done: its seat's match is over, or (on a Session) the runner is stopped.
// Throws Error when it cannot.
void Run(const Config& config, Runner& runner);

}  // namespace president
