// The seat protocol, the same on a Play stream and in a Session: each server message turned into what to do,
// and the bot asked under the turn's deadline.
#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <exception>

#include "president/kit.h"

namespace president {
namespace {

bool Equal(const Action& a, const Action& b) { return google::protobuf::util::MessageDifferencer::Equals(a, b); }

}  // namespace

void Decision::Move(Clock::time_point to) {
  std::lock_guard<std::mutex> lock(mu);
  deadline = to;
  ++moves;
  changed.notify_all();
}

BotThread::BotThread(Bot& bot) : queue_(std::make_shared<Queue>()) {
  std::thread([queue = queue_, &bot] {
    for (;;) {
      std::shared_ptr<Decision> next;
      {
        std::unique_lock<std::mutex> lock(queue->mu);
        queue->ready.wait(lock, [&] { return queue->closed || !queue->waiting.empty(); });
        if (queue->waiting.empty()) return;
        next = std::move(queue->waiting.front());
        queue->waiting.pop_front();
      }
      {
        std::lock_guard<std::mutex> lock(next->mu);
        if (next->abandoned) continue;  // answered without the bot while it was busy with an earlier turn
      }
      Action answer;
      std::optional<std::string> thrown;
      try {
        answer = bot.Choose(next->turn);
      } catch (const std::exception& e) {
        thrown = e.what();
      } catch (...) {
        thrown = "an exception that is not a std::exception";
      }
      std::lock_guard<std::mutex> lock(next->mu);
      next->answered = true;
      next->answer = std::move(answer);
      next->thrown = std::move(thrown);
      next->changed.notify_all();
    }
  }).detach();
}

BotThread::~BotThread() {
  std::lock_guard<std::mutex> lock(queue_->mu);
  queue_->closed = true;
  queue_->ready.notify_all();
}

void BotThread::Ask(std::shared_ptr<Decision> decision) {
  std::lock_guard<std::mutex> lock(queue_->mu);
  queue_->waiting.push_back(std::move(decision));
  queue_->ready.notify_all();
}

std::pair<Action, v1::BotFault> Decide(BotThread& bot, const std::shared_ptr<Decision>& decision, Logger& log) {
  bot.Ask(decision);
  Decision& d = *decision;
  const Action& safe = d.turn.legal.front();
  std::unique_lock<std::mutex> lock(d.mu);
  int armed = 0;  // the deadline moves the expiry below was computed for
  std::optional<std::chrono::steady_clock::time_point> expiry;  // none: no deadline, wait for the bot
  for (;;) {
    if (d.answered) break;
    if (d.deadline && (!expiry || armed != d.moves)) {
      auto budget = std::max<Clock::duration>(*d.deadline - Clock::now() - kSafetyMargin, kLeastBudget);
      expiry = std::chrono::steady_clock::now() + budget;
      armed = d.moves;
    }
    if (!expiry) {
      d.changed.wait(lock);
    } else if (d.changed.wait_until(lock, *expiry) == std::cv_status::timeout && !d.answered &&
               armed == d.moves) {
      d.abandoned = true;
      log.Problem(Cat("turn ", d.turn.id, ": the bot did not answer in time for the deadline; sending the first"
                      " legal action"));
      return {safe, v1::BOT_FAULT_TIMEOUT};
    }
  }
  if (d.thrown) {
    log.Problem(Cat("turn ", d.turn.id, ": the bot threw (", *d.thrown, "); sending the first legal action"));
    return {safe, v1::BOT_FAULT_ERROR};
  }
  for (const Action& legal : d.turn.legal) {
    if (Equal(d.answer, legal)) return {d.answer, v1::BOT_FAULT_UNSPECIFIED};
  }
  log.Problem(Cat("turn ", d.turn.id, ": the bot answered \"", ActionText(d.answer),
                  "\", which is not one of the legal actions; sending the first legal action"));
  return {safe, v1::BOT_FAULT_INVALID};
}

void Runner::Handle(const std::shared_ptr<Seat>& seat, const std::shared_ptr<Connection>& connection,
                    const v1::PlayResponse& message) {
  std::lock_guard<std::mutex> lock(mu_);
  switch (message.kind_case()) {
    case v1::PlayResponse::kWelcome: {
      const auto& welcome = message.welcome();
      seat->match_id = welcome.match_id();
      seat->player = welcome.player();
      seat->names.assign(welcome.names().begin(), welcome.names().end());
      seat->rules = welcome.rules();
      break;
    }
    case v1::PlayResponse::kEvent:
      seat->last_seq = std::max(seat->last_seq, message.event().seq());
      break;
    case v1::PlayResponse::kSnapshot:
      seat->last_seq = std::max(seat->last_seq, message.snapshot().last_seq());
      break;
    case v1::PlayResponse::kPrompt:
      Prompt(seat, connection, message.prompt());
      break;
    case v1::PlayResponse::kTurnDeadline: {
      auto deciding = seat->deciding.find(message.turn_deadline().turn_id());
      if (deciding != seat->deciding.end()) deciding->second->Move(TimeOf(message.turn_deadline().deadline()));
      break;
    }
    case v1::PlayResponse::kActionAccepted:
      ++seat->accepted;
      break;
    case v1::PlayResponse::kActionRejected:
      Refused(seat, connection, message.action_rejected());
      break;
    case v1::PlayResponse::kMatchOver:
      seat->result = message.match_over().result();
      break;
    case v1::PlayResponse::KIND_NOT_SET:
      break;
  }
}

// Answers a turn once: a prompt repeated on a new connection gets the act already sent again.
void Runner::Prompt(const std::shared_ptr<Seat>& seat, const std::shared_ptr<Connection>& connection,
                    const v1::Prompt& prompt) {
  uint64_t turn = prompt.turn_id();
  auto answered = seat->answered.find(turn);
  if (answered != seat->answered.end()) {
    if (seat->sent_on[turn] != connection->number) {
      seat->sent_on[turn] = connection->number;
      connection->Act(seat->match_id, answered->second);
    }
    return;
  }
  if (seat->deciding.count(turn) > 0) return;  // still deciding: the act goes out on the connection open then
  if (prompt.legal_actions().empty()) {
    log_.Problem(Cat(log_.Where(*seat), " turn ", turn, ": a prompt without legal actions; not answered"));
    return;
  }
  for (auto old = seat->prompts.begin(); old != seat->prompts.end() && old->first + kPromptsKept <= turn;) {
    seat->answered.erase(old->first);
    seat->sent_on.erase(old->first);
    seat->retried.erase(old->first);
    old = seat->prompts.erase(old);
  }
  seat->prompts[turn] = prompt;
  Turn t;
  t.match_id = seat->match_id;
  t.player = seat->player;
  t.names = seat->names;
  t.rules = seat->rules;
  t.id = turn;
  t.obs = prompt.observation();
  t.legal.assign(prompt.legal_actions().begin(), prompt.legal_actions().end());
  if (prompt.has_deadline()) t.deadline = TimeOf(prompt.deadline());
  auto decision = std::make_shared<Decision>(std::move(t));
  seat->deciding[turn] = decision;
  std::thread([self = shared_from_this(), seat, decision] { self->Answer(seat, decision); }).detach();
}

// Runs on a thread of the turn's own: decides, then sends on the connection open by then.
void Runner::Answer(const std::shared_ptr<Seat>& seat, const std::shared_ptr<Decision>& decision) {
  auto [action, fault] = Decide(bot_, decision, log_);
  v1::Act act;
  act.set_turn_id(decision->turn.id);
  *act.mutable_action() = action;
  act.set_fault(fault);
  std::shared_ptr<Connection> current;
  std::string match_id, where;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seat->deciding.erase(act.turn_id());
    seat->answered[act.turn_id()] = act;
    current = current_;
    if (current) seat->sent_on[act.turn_id()] = current->number;
    match_id = seat->match_id;
    where = log_.Where(*seat);
  }
  log_.Verbose(Cat(where, " turn ", act.turn_id(), ": ", ActionText(action)));
  if (current) current->Act(match_id, act);
}

// Says why the server refused an act, and sends the first legal action instead, once, if it is another.
void Runner::Refused(const std::shared_ptr<Seat>& seat, const std::shared_ptr<Connection>& connection,
                     const v1::ActionRejected& rejected) {
  ++seat->rejected;
  uint64_t turn = rejected.turn_id();
  auto sent = seat->answered.find(turn);
  std::string what = sent != seat->answered.end() ? ActionText(sent->second.action()) : "an act";
  std::string why = rejected.reason();
  for (const std::string& more : {rejected.illegal_reason(), rejected.message()}) {
    if (!more.empty()) why += " " + more;
  }
  log_.Problem(Cat(log_.Where(*seat), " turn ", turn, ": the server refused ", what, ": ", why));
  bool illegal = rejected.error_reason() == v1::ERROR_REASON_ILLEGAL_ACTION ||
                 rejected.error_reason() == v1::ERROR_REASON_MALFORMED;
  auto prompt = seat->prompts.find(turn);
  if (!illegal || prompt == seat->prompts.end() || seat->retried.count(turn) > 0 ||
      prompt->second.legal_actions().empty()) {
    return;
  }
  const Action& fallback = prompt->second.legal_actions(0);
  if (sent != seat->answered.end() && Equal(sent->second.action(), fallback)) return;
  seat->retried.insert(turn);
  v1::Act act;
  act.set_turn_id(turn);
  *act.mutable_action() = fallback;
  seat->answered[turn] = act;
  seat->sent_on[turn] = connection->number;
  log_.Problem(Cat(log_.Where(*seat), " turn ", turn, ": sending the first legal action instead: ",
                   ActionText(fallback)));
  connection->Act(seat->match_id, act);
}

void Runner::SetConnection(std::shared_ptr<Connection> connection) {
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(connection);
  if (stopped_ && current_) current_->Cancel();
}

void Runner::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  if (current_) current_->Cancel();
  stopping_.notify_all();
}

bool Runner::Stopped() {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

bool Runner::Pause(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mu_);
  return !stopping_.wait_for(lock, wait, [this] { return stopped_; });
}

}  // namespace president
