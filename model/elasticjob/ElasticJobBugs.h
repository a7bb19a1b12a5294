// Bug switches of the ElasticJob model: each re-introduces a known mistake (docs/elasticjob-model.md).
#pragma once

namespace elasticjob {

struct ElasticJobBugs {
  // ej-no-has-leader-check: LeaderElectionExecutionCallback.execute without `if (!hasLeader())`.
  // The latch only serialises the callbacks, so every later holder overwrites the leader node (source
  // 000: "如果不判断当前是否有主节点，原来的主节点会被覆盖").
  bool no_has_leader_check = false;
  // ej-any-node-sets-resharding-flag: ElasticJob before PR #1472 (3.0.0-alpha and 2.x): any instance
  // creates leader/sharding/necessary, and SetUpFacade.registerStartUpInfo calls setReshardingFlag
  // after persisting the instance (issue #1471).
  bool any_node_sets_resharding_flag = false;
};

}  // namespace elasticjob
