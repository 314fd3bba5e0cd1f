// The bot's command: its options, the connection to the server, its lines and its exit status.
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "president/kit.h"

namespace president {
namespace {

std::string EnvOr(const char* name, const std::string& otherwise) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : otherwise;
}

long long Number(const std::string& option, const std::string& text) {
  size_t used = 0;
  long long value = -1;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < 0) {
    throw UsageError("--" + option + ": \"" + text + "\" is not a count");
  }
  return value;
}

int MainStatus(int argc, char** argv, Bot& bot) {
  // Ctrl-C and SIGTERM are taken by one thread of the kit's own: blocked here, before any other thread starts
  // (gRPC's included), every thread leaves them to it.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  Config config;
  try {
    config = ParseArgs(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::cerr << "cpp-bot: " << e.what() << " (see --help)" << std::endl;
    return 2;
  }
  if (config.help) {
    std::cout << kUsage;
    return 0;
  }
  auto runner = std::make_shared<Runner>(bot, std::cout, std::cerr, config.verbose, !config.account_token.empty());
  std::thread([runner, stop_signals] {
    int signal = 0;
    if (sigwait(&stop_signals, &signal) == 0) runner->Stop();
  }).detach();
  try {
    Run(config, *runner);
  } catch (const std::exception& e) {
    std::cerr << "cpp-bot: error: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}

// Plays the seat token's match; with config.again, each next match of the dev seat too, until stopped.
void PlaySeats(const Config& config, Runner& runner, const std::shared_ptr<grpc::Channel>& channel) {
  Logger& log = runner.log();
  int played = 0;
  bool waiting = false;
  for (;;) {
    std::shared_ptr<Seat> seat;
    try {
      seat = runner.PlaySeat(channel, config.server, config.token, config.name);
    } catch (const DevSeatWaiting& e) {
      if (!config.again) throw;
      if (!waiting) log.Info(Cat(e.what(), " (--again waits for it; Ctrl-C stops)"));
      waiting = true;
      if (runner.Pause(std::chrono::seconds(1))) continue;
    } catch (const Error&) {
      if (!config.again || !runner.Stopped()) throw;
    }
    if (seat == nullptr) {  // --again, stopped
      log.Info("stopped after " + Counted(played, "match"));
      return;
    }
    log.Info(Cat("match over: ", log.Result(*seat), "; ", Counted(seat->accepted, "action"), " accepted, ",
                 seat->rejected, " rejected"));
    if (!config.again) return;
    ++played;
    waiting = false;
  }
}

}  // namespace

const char* const kUsage =
    "usage: bot --server HOST:PORT --token SEAT_TOKEN              one seat, until its match is over\n"
    "       bot --server HOST:PORT --token DEV_SEAT_TOKEN --again  a dev seat: its match, then each next one\n"
    "       bot --server HOST:PORT --account-token ACCOUNT_TOKEN   every match of an account, many at once\n"
    "\n"
    "  --server HOST:PORT       the server (env PRESIDENT_SERVER; default localhost:50051)\n"
    "  --token T                a seat token: play that one seat (env PRESIDENT_TOKEN)\n"
    "  --account-token T        an account token: play every match of the account, many at once, until stopped\n"
    "                           (env PRESIDENT_ACCOUNT_TOKEN)\n"
    "  --name N                 with --token: the name a seat created without one shows (default cpp-bot)\n"
    "  --again                  with --token: a dev seat's token (make run's seat 0): play each next match of\n"
    "                           the seat until stopped\n"
    "  --max-matches N          with --account-token: the most matches at once from the arena (default 4)\n"
    "  --arena                  with --account-token: let the arena put the bot in rated matches\n"
    "  --matches N              with --account-token: stop after N finished matches\n"
    "  --verbose                log every move\n"
    "\n"
    "Exit status: 0 done (or stopped, on a Session), 1 an error, 2 bad arguments.\n";

std::string Counted(int n, const std::string& noun) {
  if (n == 1) return "1 " + noun;
  bool es = noun.size() >= 2 && noun.compare(noun.size() - 2, 2, "ch") == 0;
  return Cat(n, " ", noun, es ? "es" : "s");
}

std::string Seconds(std::chrono::milliseconds wait) { return Cat(wait.count() / 1000.0, " s"); }

Clock::time_point TimeOf(const google::protobuf::Timestamp& stamp) {
  auto since_epoch = std::chrono::seconds(stamp.seconds()) + std::chrono::nanoseconds(stamp.nanos());
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(since_epoch));
}

void Logger::Info(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  out_ << "[cpp-bot] " << line << std::endl;
}

void Logger::Problem(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  err_ << "cpp-bot: " << line << std::endl;
}

void Logger::Verbose(const std::string& line) {
  if (moves_) Info(line);
}

std::string Logger::Where(const Seat& seat) const {
  return session_ ? Cat("match ", seat.match_id, " p", seat.player) : Cat("p", seat.player);
}

std::string Logger::Result(const Seat& seat) const {
  v1::MatchResult result = seat.result.value_or(v1::MatchResult());
  std::string winner = Cat("player ", result.winner());
  if (result.winner() < seat.names.size()) {
    const std::string& name = seat.names[result.winner()];
    if (!name.empty() && name != winner) winner = name + " (" + winner + ")";
  }
  std::string totals;
  for (uint32_t total : result.totals()) totals += (totals.empty() ? "" : ",") + std::to_string(total);
  return "winner " + winner + ", totals " + totals;
}

Config ParseArgs(const std::vector<std::string>& args) {
  Config config;
  config.server = EnvOr("PRESIDENT_SERVER", "localhost:50051");
  config.token = EnvOr("PRESIDENT_TOKEN", "");
  config.account_token = EnvOr("PRESIDENT_ACCOUNT_TOKEN", "");
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      config.help = true;
      return config;
    }
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument \"" + arg + "\"");
    std::string option = arg.substr(2);
    std::optional<std::string> inline_value;
    if (size_t equals = option.find('='); equals != std::string::npos) {
      inline_value = option.substr(equals + 1);
      option.resize(equals);
    }
    if (option == "arena" || option == "verbose" || option == "again") {
      if (inline_value) throw UsageError("--" + option + " takes no value");
      (option == "arena" ? config.arena : option == "again" ? config.again : config.verbose) = true;
      continue;
    }
    static const std::set<std::string> kValued{"server", "token", "account-token", "name", "max-matches",
                                               "matches"};
    if (kValued.count(option) == 0) throw UsageError("unknown option " + arg);
    if (!inline_value && i + 1 == args.size()) throw UsageError("--" + option + " needs a value");
    std::string value = inline_value ? *inline_value : args[++i];
    if (option == "server") config.server = value;
    if (option == "token") config.token = value;
    if (option == "account-token") config.account_token = value;
    if (option == "name") config.name = value;
    if (option == "max-matches") config.max_matches = uint32_t(Number(option, value));
    if (option == "matches") config.stop_after = int(Number(option, value));
  }
  if (config.token.empty() == config.account_token.empty()) {
    throw UsageError("give --token SEAT_TOKEN or --account-token ACCOUNT_TOKEN");
  }
  if (config.again && config.token.empty()) throw UsageError("--again plays a dev seat's --token match after match");
  return config;
}

void Run(const Config& config, Runner& runner) {
  grpc::ChannelArguments args;  // connect again soon after a server comes back
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  auto channel = grpc::CreateCustomChannel(config.server, grpc::InsecureChannelCredentials(), args);
  Logger& log = runner.log();
  if (!config.token.empty()) {
    PlaySeats(config, runner, channel);
    return;
  }
  v1::Appetite appetite;
  appetite.set_max_matches(config.max_matches);
  appetite.set_arena(config.arena);
  int finished = runner.PlayAccount(channel, config.server, config.account_token, appetite, config.stop_after);
  log.Info("done: " + Counted(finished, "match") + " finished");
}

void Main(int argc, char** argv, Bot& bot) { std::exit(MainStatus(argc, argv, bot)); }

void Main(int argc, char** argv, Action (*choose)(const Turn&)) {
  BotFunction bot(choose);
  Main(argc, argv, bot);
}

}  // namespace president
