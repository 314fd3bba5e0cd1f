// Every match of an account on one Session, each resumed after a lost connection.
#include "president/kit.h"
#include "president/v1/president.grpc.pb.h"

namespace president {
namespace {

v1::SessionRequest SessionAct(const std::string& match_id, const v1::Act& act) {
  v1::SessionRequest request;
  request.mutable_act()->set_match_id(match_id);
  *request.mutable_act()->mutable_act() = act;
  return request;
}

}  // namespace

int Runner::PlayAccount(const std::shared_ptr<grpc::Channel>& channel, const std::string& server,
                        const std::string& token, const v1::Appetite& appetite, int stop_after) {
  auto stub = v1::PresidentService::NewStub(channel);
  SessionStream::Opener open = [&stub](grpc::ClientContext* context) { return stub->Session(context); };
  Account account;
  Reconnection rc(server, "account");
  for (int number = 1;; ++number) {
    std::optional<grpc::Status> failed = SessionOnce(open, token, appetite, account, number, rc, stop_after);
    if (!failed || Stopped()) return account.finished;
    std::chrono::milliseconds wait = rc.After(*failed);
    size_t live;
    {
      std::lock_guard<std::mutex> lock(mu_);
      live = account.seats.size();
    }
    log_.Info(Cat("the session was lost (", Describe(*failed), "); reconnecting in ", Seconds(wait), " to resume ",
                  Counted(int(live), "match")));
    if (!Pause(wait)) return account.finished;
  }
}

std::optional<grpc::Status> Runner::SessionOnce(const SessionStream::Opener& open, const std::string& token,
                                                const v1::Appetite& appetite, Account& account, int number,
                                                Reconnection& rc, int stop_after) {
  auto stream = std::make_shared<SessionStream>(number, token, open, SessionAct, log_);
  v1::SessionRequest hello;
  *hello.mutable_hello()->mutable_accepts() = appetite;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, seat] : account.seats) {
      v1::MatchCursor* cursor = hello.mutable_hello()->add_resume();
      cursor->set_match_id(id);
      cursor->set_last_seq(seat->last_seq);
    }
  }
  SetConnection(stream);
  bool done = false;
  if (stream->Start(hello)) {
    v1::SessionResponse message;
    while (!done && stream->Read(&message)) {
      switch (message.kind_case()) {
        case v1::SessionResponse::kWelcome:
          rc.Success();
          Welcome(account, message.welcome());
          break;
        case v1::SessionResponse::kMatch:
          Update(account, stream, message.match());
          break;
        case v1::SessionResponse::kUpdates:
          for (const v1::MatchUpdate& update : message.updates().updates()) Update(account, stream, update);
          break;
        case v1::SessionResponse::kNotice: {
          const v1::Notice& notice = message.notice();
          std::string line = Cat("notice ", notice.reason(), ": ", notice.message());
          notice.reason() == "CHECK_PASSED" ? log_.Info(line) : log_.Problem(line);  // the arena's good news
          break;
        }
        case v1::SessionResponse::kChallenge: {
          log_.Info("declining a challenge from " + message.challenge().from());
          v1::SessionRequest answer;
          answer.mutable_answer()->set_challenge_id(message.challenge().challenge_id());
          stream->Send(answer);
          break;
        }
        default:
          break;
      }
      done = stop_after > 0 && account.finished >= stop_after;
    }
  }
  SetConnection(nullptr);
  if (done) stream->Cancel();
  grpc::Status status = stream->End();
  if (done) return std::nullopt;
  return status;
}

// Forgets the matches that ended while the client was away (the server no longer lists them).
void Runner::Welcome(Account& account, const v1::SessionWelcome& welcome) {
  std::set<std::string> live(welcome.live_matches().begin(), welcome.live_matches().end());
  std::lock_guard<std::mutex> lock(mu_);
  for (auto seat = account.seats.begin(); seat != account.seats.end();) {
    if (live.count(seat->first) > 0) {
      ++seat;
      continue;
    }
    log_.Info("match " + seat->first + " ended while this bot was away");
    seat = account.seats.erase(seat);
  }
  log_.Info(Cat("account ", welcome.account(), ": ", Counted(welcome.live_matches_size(), "live match")));
}

// Takes one match's messages; after its MatchOver the match is done.
void Runner::Update(Account& account, const std::shared_ptr<Connection>& connection,
                    const v1::MatchUpdate& update) {
  std::shared_ptr<Seat> seat;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = account.seats[update.match_id()];
    if (!slot) slot = std::make_shared<Seat>(update.match_id());
    seat = slot;
  }
  for (const v1::PlayResponse& message : update.messages()) {
    Handle(seat, connection, message);
    if (message.has_match_over()) {
      std::string line;
      {
        std::lock_guard<std::mutex> lock(mu_);
        account.seats.erase(update.match_id());
        ++account.finished;
        line = log_.Where(*seat) + " over: " + log_.Result(*seat);
      }
      log_.Info(line);
      return;
    }
  }
}

}  // namespace president
