#include "core/collective/collective_ops.h"

#include <array>
#include <tuple>

#include "core/collective/agreed_selection.h"
#include "core/collective/algorithm_call.h"
#include "core/collective/call_agreement.h"
#include "core/collective/call_checks.h"
#include "core/collective/peer_exchange.h"
#include "core/collective/progress.h"
#include "core/common/logging.h"
#include "core/runtime/runtime.h"

namespace strata {

StatusOr<std::unique_ptr<CollectiveOps>> CollectiveOps::create(std::shared_ptr<Runtime> runtime,
                                                               TeamSpec spec,
                                                               CommunicationOptions options) {
  CollectivesConfig config = runtime->config().collectives;
  if (options.implementation) config.implementation = *options.implementation;
  if (options.bytes_per_pack) config.bytes_per_pack = *options.bytes_per_pack;
  if (options.timeout) config.timeout = *options.timeout;
  if (config.timeout <= std::chrono::nanoseconds::zero()) {
    return InvalidArgumentError("collective timeout must be positive");
  }
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Team> team, Team::create(std::move(runtime), std::move(spec)));
  return std::unique_ptr<CollectiveOps>(new CollectiveOps(std::move(team), std::move(config)));
}

CollectiveOps::CollectiveOps(std::unique_ptr<Team> team, CollectivesConfig config)
    : team_(std::move(team)),
      config_(std::move(config)),
      selector_(team_->runtime().registry(), config_) {}

Status CollectiveOps::all_reduce(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                                 ReduceOp op, const CallOptions& options) {
  return run(CollectiveKind::kAllReduce, inputs, outputs, op, 0, options);
}

Status CollectiveOps::broadcast(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                                int root, const CallOptions& options) {
  return run(CollectiveKind::kBroadcast, inputs, outputs, ReduceOp::kSum, root, options);
}

Status CollectiveOps::all_gather(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                                 const CallOptions& options) {
  return run(CollectiveKind::kAllGather, inputs, outputs, ReduceOp::kSum, 0, options);
}

Status CollectiveOps::reduce_scatter(std::span<const Buffer> inputs,
                                     std::span<const Buffer> outputs, ReduceOp op,
                                     const CallOptions& options) {
  return run(CollectiveKind::kReduceScatter, inputs, outputs, op, 0, options);
}

Status CollectiveOps::reduce(std::span<const Buffer> inputs, std::span<const Buffer> outputs,
                             ReduceOp op, int root, const CallOptions& options) {
  return run(CollectiveKind::kReduce, inputs, outputs, op, root, options);
}

Status CollectiveOps::barrier(const CallOptions& options) {
  std::vector<Buffer> none(static_cast<size_t>(team_->local_count()));
  for (int i = 0; i < team_->local_count(); ++i) {
    none[static_cast<size_t>(i)].device = team_->devices()[static_cast<size_t>(i)];
  }
  return run(CollectiveKind::kBarrier, none, none, ReduceOp::kSum, 0, options);
}

strata_call_desc_t CollectiveOps::describe(CollectiveKind kind, DType dtype, uint64_t count,
                                           ReduceOp op, int root, bool in_place) const {
  strata_call_desc_t d{};
  d.struct_size = sizeof d;
  d.op = to_abi(kind);
  d.dtype = to_abi(dtype);
  d.redop = to_abi(op);
  d.count = count;
  d.root = root;
  d.in_place = in_place ? 1 : 0;
  d.device_type = team_->device_type();
  d.team = &team_->desc();
  return d;
}

SelectionQuery CollectiveOps::query_of(const strata_call_desc_t& desc,
                                       std::string_view forced) {
  return {desc.op, desc.dtype, desc.redop, desc.count, desc.root, desc.in_place, forced};
}

StatusOr<CollectiveOps::Chosen> CollectiveOps::select(const strata_call_desc_t& desc,
                                                     const SelectionQuery& query,
                                                     uint64_t sequence, Deadline deadline) {
  if (const AlgorithmEntry* hit = team_->cached_selection(query)) {
    STRATA_ASSIGN_OR_RETURN(void* state, team_->state_for(*hit, deadline));
    return Chosen{hit, state};
  }
  const std::string_view forced = std::get<std::string_view>(query);
  bool in_doubt = false;
  auto picked =
      select_on_every_rank(*team_, selector_, desc, forced, sequence, deadline, &in_doubt);
  if (!picked.ok()) {
    if (in_doubt) team_->mark_broken(picked.status());
    return picked.status();
  }
  const auto key = std::make_from_tuple<SelectionKey>(query);  // owns the name
  team_->cache_selection(key, picked->algorithm);
  if (forced.empty()) selections_[key] = std::move(picked->selection);
  return Chosen{picked->algorithm, picked->team_state};
}

StatusOr<Selection> CollectiveOps::explain(CollectiveKind op, DType dtype, uint64_t count,
                                           ReduceOp redop, bool in_place, int root) {
  std::lock_guard lock(mu_);
  const strata_call_desc_t desc = describe(op, dtype, count, redop, root, in_place);
  const SelectionQuery query = query_of(desc, {});
  // A shape already run: what its first call decided, declines included.
  if (auto it = selections_.find(query); it != selections_.end()) return it->second;
  if (!team_->multi_process()) {
    // One process needs no peers to try team_create, so explain walks the
    // list exactly as the call will (and the state made is the call's).
    const Deadline deadline = deadline_after(config_.timeout);
    bool in_doubt = false;
    STRATA_ASSIGN_OR_RETURN(
        AgreedChoice picked,
        select_on_every_rank(*team_, selector_, desc, {}, 0, deadline, &in_doubt));
    const auto key = std::make_from_tuple<SelectionKey>(query);
    team_->cache_selection(key, picked.algorithm);
    selections_[key] = picked.selection;
    return picked.selection;
  }
  // team_create needs every rank at once: before the first call of this
  // shape, only the declines this team has met so far are known.
  return selector_.select(desc, {}, &team_->declined_algorithms());
}

Status CollectiveOps::run(CollectiveKind kind, std::span<const Buffer> inputs,
                          std::span<const Buffer> outputs, ReduceOp op, int root,
                          const CallOptions& options) {
  std::lock_guard lock(mu_);
  return run_locked(kind, inputs, outputs, op, root, options);
}

Status CollectiveOps::run_locked(CollectiveKind kind, std::span<const Buffer> inputs,
                                 std::span<const Buffer> outputs, ReduceOp op, int root,
                                 const CallOptions& options) {
  // Context strings are built only on the way out with an error: the
  // success path of a small call is a few hundred nanoseconds all told.
  auto no_algo_context = [&] { return team_->context(nullptr, collective_name(kind), 0); };
  if (!team_->broken().ok()) {
    return FailedPreconditionError("this team is unusable after an earlier failure (" +
                                   team_->broken().message() + "); build a new one")
        .with_context(no_algo_context());
  }
  auto shape = check_call(*team_, kind, inputs, outputs, root);
  if (!shape.ok()) return shape.status().with_context(no_algo_context());

  const strata_call_desc_t desc =
      describe(kind, shape->dtype, shape->count, op, root, shape->in_place);
  const SelectionQuery query = query_of(desc, options.algorithm);
  const bool repeat = last_call_.algo != nullptr && last_call_.key == query;
  if (!repeat && should_compose(options) &&
      (composed_shapes_.count(query) != 0 || local_then_hosts(options))) {
    return run_composed(kind, inputs, outputs, op, root, desc, options);
  }
  if (!repeat && options.algorithm.empty() && host_composition_fits(*team_)) {
    auto by_host = composes_by_host(
        desc, query, call_deadline_after(options.timeout.value_or(config_.timeout)));
    if (!by_host.ok()) return by_host.status().with_context(no_algo_context());
    if (*by_host) return run_host_composed(kind, inputs, outputs, op, root, desc, options);
  }
  const uint64_t sequence = team_->next_sequence();
  const auto timeout = options.timeout.value_or(config_.timeout);
  const Deadline deadline = call_deadline_after(timeout);
  const AlgorithmEntry* chosen = last_call_.algo;
  void* team_state = last_call_.state;
  if (!repeat) {
    auto selected = select(desc, query, sequence, deadline);
    if (!selected.ok()) {
      const Status& why = selected.status();
      if (why.code() == Code::kNotSupported && should_compose(options)) {
        composed_shapes_.insert(std::make_from_tuple<SelectionKey>(query));
        return run_composed(kind, inputs, outputs, op, root, desc, options);
      }
      // Every algorithm that could serve the whole team declined it, at
      // team_create on some rank (agreed, so every rank is here): the
      // levels may still serve it.
      if (auto it = hierarchy_.find(query);
          why.code() == Code::kNotSupported && it != hierarchy_.end() &&
          it->second.hierarchy == "auto" && it->second.qualifies) {
        it->second.compose = true;
        it->second.reason = "no algorithm serves the whole team (" + why.message() + ")";
        return run_host_composed(kind, inputs, outputs, op, root, desc, options);
      }
      return why.with_context(team_->context(nullptr, collective_name(kind), sequence));
    }
    chosen = selected->algorithm;
    team_state = selected->team_state;
    last_call_ = {std::make_from_tuple<SelectionKey>(query), chosen, team_state};
  }
  const AlgorithmEntry& algo = *chosen;
  auto context = [&] { return team_->context(&algo, collective_name(kind), sequence); };
  // Teams rarely have more than a handful of local devices: no heap for them.
  constexpr size_t kInline = 16;
  std::array<strata_buffer_t, kInline> in_inline;
  std::array<strata_buffer_t, kInline> out_inline;
  std::vector<strata_buffer_t> in_heap;
  std::vector<strata_buffer_t> out_heap;
  strata_buffer_t* in_abi = in_inline.data();
  strata_buffer_t* out_abi = out_inline.data();
  if (inputs.size() > kInline) {
    in_heap.resize(inputs.size());
    out_heap.resize(inputs.size());
    in_abi = in_heap.data();
    out_abi = out_heap.data();
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    in_abi[i] = inputs[i].to_abi();
    out_abi[i] = outputs[i].to_abi();
  }
  strata_call_t call{};
  call.struct_size = sizeof call;
  call.desc = &desc;
  call.inputs = in_abi;
  call.outputs = out_abi;
  call.sequence = sequence;
  call.deadline_ns = to_ns(deadline);

  StartedCall started =
      Operation::start(algo, team_state, call, first_slice(timeout), &watch_);
  // A failed create() started nothing: the team stays usable.
  if (!started.posted) return started.status.with_context(context());
  // Most small calls end inside run: no health check to build for them.
  if (started.status.ok() && !started.running) return Status::Ok();
  std::function<Status()> health;
  if (team_->multi_process()) health = [this] { return team_->check_health(); };
  Status result = finish_call(started, deadline, timeout, health);
  if (!result.ok()) {
    // Peers may be mid-call: the team's sequence can no longer be trusted.
    team_->mark_broken(result);
    return result.with_context(context());
  }
  return Status::Ok();
}

bool CollectiveOps::local_then_hosts(const CallOptions& options) const {
  return config_.hierarchy == "host" && should_compose(options) && team_->host_count() > 1 &&
         team_->largest_host() > 1;
}

StatusOr<bool> CollectiveOps::composes_by_host(const strata_call_desc_t& desc,
                                               const SelectionQuery& query, Deadline deadline) {
  if (auto it = hierarchy_.find(query); it != hierarchy_.end()) return it->second.compose;
  STRATA_ASSIGN_OR_RETURN(Selection flat,
                          selector_.walk(desc, {}, &team_->declined_algorithms()));
  HierarchyDecision decision = decide_hierarchy(*team_, selector_, config_, desc, flat);
  if (config_.hierarchy == "auto") {
    const uint64_t sequence = team_->next_sequence();
    auto values = exchange_with_peers(*team_, "hierarchy/" + std::to_string(sequence),
                                      decision.compose ? "host" : "flat", deadline,
                                      "while agreeing on host composition");
    Status agreed = values.status();
    if (agreed.ok() && !values->missing.empty()) {
      std::string names;
      for (const auto& n : values->missing) names += (names.empty() ? "" : ", ") + n;
      agreed = TimedOutError(names + " did not say whether " + describe_call_shape(desc) +
                             " composes by host before the call's deadline");
    }
    if (!agreed.ok()) {
      team_->mark_broken(agreed);
      return agreed;
    }
    for (size_t r = 0; r < values->by_rank.size() && !decision.compose; ++r) {
      if (*values->by_rank[r] != "host") continue;
      decision.compose = true;
      decision.reason = team_->describe_process(static_cast<int>(r)) +
                        " composes it by host (its algorithms differ in what they accept)";
    }
  }
  std::string levels;
  for (const HostStep& s : decision.steps) {
    levels += std::string(levels.empty() ? "" : ", ") + host_level_name(s.level) + " " +
              std::string(collective_name(s.op)) + " by " +
              (s.selection.chosen ? s.selection.chosen->id : std::string("nothing"));
  }
  STRATA_LOG_INFO("team {} ({} processes on {} hosts): {} runs {}: {}{}", team_->desc().team_id,
                  team_->desc().process_count, team_->host_count(), describe_call_shape(desc),
                  decision.compose ? "composed by host" : "flat", decision.reason,
                  decision.compose ? " [" + levels + "]" : std::string());
  const bool compose = decision.compose;
  hierarchy_.emplace(std::make_from_tuple<SelectionKey>(query), std::move(decision));
  return compose;
}

Status CollectiveOps::run_host_composed(CollectiveKind kind, std::span<const Buffer> inputs,
                                        std::span<const Buffer> outputs, ReduceOp op, int root,
                                        const strata_call_desc_t& desc,
                                        const CallOptions& options) {
  const std::string context = team_->context(
      nullptr, std::string(collective_name(kind)) + " (composed by host: intra-host, "
                                                    "inter-host, intra-host)", 0);
  const Deadline deadline = deadline_after(options.timeout.value_or(config_.timeout));
  if (!host_composed_) {
    auto made = HostComposedCollective::create(*team_, config_);
    if (!made.ok()) {
      team_->mark_broken(made.status());
      return made.status().with_context(context);
    }
    host_composed_ = std::move(*made);
  }
  Status result =
      host_composed_->run(kind, inputs[0], outputs[0], op, root, desc.count, deadline);
  if (!result.ok()) {
    team_->mark_broken(result);
    return result.with_context(context);
  }
  return Status::Ok();
}

StatusOr<HierarchyDecision> CollectiveOps::explain_hierarchy(CollectiveKind op, DType dtype,
                                                             uint64_t count, ReduceOp redop,
                                                             bool in_place, int root) {
  std::lock_guard lock(mu_);
  const strata_call_desc_t desc = describe(op, dtype, count, redop, root, in_place);
  if (auto it = hierarchy_.find(query_of(desc, {})); it != hierarchy_.end()) return it->second;
  STRATA_ASSIGN_OR_RETURN(Selection flat,
                          selector_.walk(desc, {}, &team_->declined_algorithms()));
  return decide_hierarchy(*team_, selector_, config_, desc, flat);
}

bool CollectiveOps::should_compose(const CallOptions& options) const {
  return options.algorithm.empty() && team_->multi_process() && team_->local_count() > 1;
}

Status CollectiveOps::run_composed(CollectiveKind kind, std::span<const Buffer> inputs,
                                   std::span<const Buffer> outputs, ReduceOp op, int root,
                                   const strata_call_desc_t& desc, const CallOptions& options) {
  const std::string context = team_->context(nullptr, std::string(collective_name(kind)) +
                                                          " (composed: local, cross-process, "
                                                          "local)", 0);
  const auto timeout = options.timeout.value_or(config_.timeout);
  const Deadline deadline = deadline_after(timeout);
  if (!composed_) {
    auto made = ComposedCollective::create(*team_, config_);
    if (!made.ok()) {
      team_->mark_broken(made.status());
      return made.status().with_context(context);
    }
    composed_ = std::move(*made);
  }
  Status result = composed_->run(kind, inputs, outputs, op, root, desc.count, deadline);
  if (!result.ok()) {
    team_->mark_broken(result);
    return result.with_context(context);
  }
  return Status::Ok();
}

}  // namespace strata
