// A stateful property: random writes through PrepRequestProcessor + DataTree against a plain
// reference model of ZooKeeper's namespace (a map of path → data, version, cversion, owner,
// children). Writes are pipelined: a random number of them is prepared before the batch is applied,
// so prep runs against outstanding changes as on a busy leader. A small path alphabet makes
// collisions (NODEEXISTS, NONODE, NOTEMPTY, BADVERSION, ephemeral parents) frequent.
//
// After every write the codes, the created names and the new versions must match the model; after
// every batch the whole tree must equal the model, a replica applying the same txns must have the
// same digest, and nothing may stay outstanding.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "model/zk/server/DataTree.h"
#include "model/zk/server/PrepRequestProcessor.h"

namespace zk {
namespace {

// ---- the commands ----

enum OpKind { op_create = 0, op_delete = 1, op_set_data = 2, op_check = 3 };

struct OpSpec {
  int kind = op_create;
  int path = 0;     // < alphabet size: that path; otherwise an existing node, picked at run time
  int mode = 0;     // CreateMode
  int version = 0;  // 0, 1: any (-1); 2..4: expect version 0..2
  int data = 0;
};

enum CommandKind { command_op = 0, command_multi = 1, command_close_session = 2 };

struct Command {
  int kind = command_op;
  int slot = 0;  // which of the three session slots
  OpSpec op;
  std::vector<OpSpec> ops;  // multi: 1..3 ops
  bool applyAfter = true;   // apply every prepared txn after this one (else keep pipelining)
};

void showValue(const OpSpec& op, std::ostream& os) {
  os << "{kind " << op.kind << " path " << op.path << " mode " << op.mode << " version " << op.version << " data "
     << op.data << "}";
}

void showValue(const Command& command, std::ostream& os) {
  os << "{kind " << command.kind << " slot " << command.slot << " op ";
  showValue(command.op, os);
  os << " ops [";
  for (const OpSpec& op : command.ops) showValue(op, os);
  os << "] apply " << command.applyAfter << "}";
}

// What a property concentrates on: its paths, its create modes, how often sessions close, and how
// long the pipeline gets.
struct Profile {
  std::vector<std::string> alphabet;
  int pathChoices;  // alphabet.size() ..: the rest pick an existing node
  unsigned closeWeight;
  std::vector<std::pair<unsigned, int>> modeWeights;  // CreateMode values
  unsigned pipelineWeight;                            // against 1 for applying after a write
  std::vector<std::string> setup;                     // persistent nodes created first
};

// Everything: nested paths, a system node, collisions of every kind.
const Profile broad{{"/a", "/b", "/a/x", "/a/y", "/b/z", "/zookeeper"}, 12, 1, {{1, 0}, {1, 1}, {1, 2}, {1, 3}}, 1, {}};
// Sessions: ephemeral children of one parent, closed while writes to that parent are in flight
// (3.8's prep leaves the parent's childCount stale until the closeSession is applied).
const Profile sessionsHeavy{{"/a", "/a/x", "/a/y", "/a/z"}, 5, 2, {{1, 0}, {3, 2}, {2, 3}}, 3, {"/a"}};

// A CreateMode by the profile's weights (weightedElement takes only an initializer list).
rc::Gen<int> genMode(const Profile& profile) {
  unsigned total = 0;
  for (const auto& [weight, mode] : profile.modeWeights) total += weight;
  return rc::gen::map(rc::gen::inRange(0U, total), [weights = profile.modeWeights](unsigned draw) {
    for (const auto& [weight, mode] : weights) {
      if (draw < weight) return mode;
      draw -= weight;
    }
    RC_FAIL("draw out of range");
  });
}

rc::Gen<OpSpec> genOp(const Profile& profile, int maxKind) {
  return rc::gen::build<OpSpec>(rc::gen::set(&OpSpec::kind, rc::gen::inRange(0, maxKind + 1)),
                                rc::gen::set(&OpSpec::path, rc::gen::inRange(0, profile.pathChoices)),
                                rc::gen::set(&OpSpec::mode, genMode(profile)),
                                rc::gen::set(&OpSpec::version, rc::gen::inRange(0, 5)),
                                rc::gen::set(&OpSpec::data, rc::gen::inRange(0, 3)));
}

rc::Gen<Command> genCommand(const Profile& profile) {
  // Mostly single writes, some multis, some session closes (a closed slot's writes fail with
  // SESSIONEXPIRED until the batch is applied and a new session takes the slot).
  const rc::Gen<int> kind = rc::gen::weightedElement<int>(
      {{12, command_op}, {4, command_multi}, {profile.closeWeight, command_close_session}});
  const auto ops = rc::gen::resize(3, rc::gen::nonEmpty(rc::gen::container<std::vector<OpSpec>>(genOp(profile, op_check))));
  return rc::gen::build<Command>(rc::gen::set(&Command::kind, kind), rc::gen::set(&Command::slot, rc::gen::inRange(0, 3)),
                                 rc::gen::set(&Command::op, genOp(profile, op_set_data)), rc::gen::set(&Command::ops, ops),
                                 rc::gen::set(&Command::applyAfter, rc::gen::weightedElement<bool>({{1, true}, {profile.pipelineWeight, false}})));
}

// ---- the reference model ----

const std::set<std::string> systemPaths{"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"};

struct ModelNode {
  std::string data;
  std::int32_t version = 0;
  std::int32_t cversion = 0;
  SessionId owner = 0;
  std::set<std::string> children;
};

struct Outcome {
  Outcome() = default;
  Outcome(Code code_, std::string path_ = {}, std::int32_t version_ = 0)  // NOLINT: implicit on purpose
      : code(code_), path(std::move(path_)), version(version_) {}

  Code code = Code::ok;
  std::string path;          // create: the created name
  std::int32_t version = 0;  // setData: the new version
  std::vector<Outcome> multi;
  std::vector<std::string> closed;  // closeSession: the session's ephemerals, sorted
};

std::string parentOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string nameOf(const std::string& path) { return path.substr(path.rfind('/') + 1); }

class Model {
 public:
  Model() {
    nodes["/"].children = {"zookeeper"};
    nodes["/zookeeper"].children = {"quota", "config"};
    nodes["/zookeeper/quota"];
    nodes["/zookeeper/config"];
  }

  Outcome write(const OpSpec& op, const std::string& path, SessionId session) {
    if (closed.contains(session)) return {Code::session_expired};
    switch (op.kind) {
      case op_create: return create(path, static_cast<CreateMode>(op.mode), dataOf(op), session);
      case op_delete: return remove(path, versionOf(op));
      case op_set_data: return setData(path, versionOf(op), dataOf(op));
      case op_check: return check(path, versionOf(op));
    }
    RC_FAIL("unknown op");
  }

  Outcome multi(const std::vector<OpSpec>& ops, const std::vector<std::string>& paths, SessionId session) {
    Model scratch = *this;
    Outcome outcome;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      Outcome one = scratch.write(ops[i], paths[i], session);
      if (one.code != Code::ok) {
        // All or nothing: OK before the failing op, its code, RUNTIMEINCONSISTENCY after it.
        outcome.code = one.code;
        for (Outcome& earlier : outcome.multi) earlier = Outcome{Code::ok};
        outcome.multi.push_back(Outcome{one.code});
        while (outcome.multi.size() < ops.size()) outcome.multi.push_back(Outcome{Code::runtime_inconsistency});
        return outcome;
      }
      outcome.multi.push_back(one);
    }
    *this = std::move(scratch);
    return outcome;
  }

  Outcome closeSession(SessionId session) {
    Outcome outcome;
    for (const auto& [path, node] : nodes) {
      if (node.owner == session) outcome.closed.push_back(path);
    }
    for (const std::string& path : outcome.closed) {
      erase(path);
      staleChildren[parentOf(path)]++;  // 3.8 prep does not decrement the parent's childCount
    }
    closed.insert(session);
    return outcome;
  }

  std::map<std::string, ModelNode> nodes;
  std::set<SessionId> closed;
  // Per batch: children a closeSession still in flight removed, which prep still counts.
  std::map<std::string, int> staleChildren;

 private:
  static std::string dataOf(const OpSpec& op) { return op.data == 0 ? std::string() : "d" + std::to_string(op.data); }
  static std::int32_t versionOf(const OpSpec& op) { return op.version < 2 ? -1 : op.version - 2; }

  Outcome create(const std::string& path, CreateMode mode, const std::string& data, SessionId session) {
    auto parent = nodes.find(parentOf(path));
    if (parent == nodes.end()) return {Code::no_node};
    std::string name = path;
    if (is_sequential(mode)) {
      char suffix[16];
      std::snprintf(suffix, sizeof suffix, "%010d", parent->second.cversion);
      name += suffix;
    }
    if (nodes.contains(name)) return {Code::node_exists};
    if (parent->second.owner != 0) return {Code::no_children_for_ephemerals};
    parent->second.cversion++;
    parent->second.children.insert(nameOf(name));
    ModelNode& node = nodes[name];
    node.data = data;
    node.owner = is_ephemeral(mode) ? session : 0;
    return {Code::ok, name};
  }

  Outcome remove(const std::string& path, std::int32_t version) {
    if (systemPaths.contains(path)) return {Code::bad_arguments};
    if (!nodes.contains(parentOf(path))) return {Code::no_node};
    auto node = nodes.find(path);
    if (node == nodes.end()) return {Code::no_node};
    if (version != -1 && version != node->second.version) return {Code::bad_version};
    if (!node->second.children.empty() || staleChildren[path] > 0) return {Code::not_empty};
    erase(path);
    return {Code::ok};
  }

  Outcome setData(const std::string& path, std::int32_t version, const std::string& data) {
    auto node = nodes.find(path);
    if (node == nodes.end()) return {Code::no_node};
    if (version != -1 && version != node->second.version) return {Code::bad_version};
    node->second.data = data;
    node->second.version++;
    return {Code::ok, {}, node->second.version};
  }

  Outcome check(const std::string& path, std::int32_t version) {
    auto node = nodes.find(path);
    if (node == nodes.end()) return {Code::no_node};
    if (version != -1 && version != node->second.version) return {Code::bad_version};
    return {Code::ok};
  }

  void erase(const std::string& path) {
    nodes.erase(path);
    nodes.at(parentOf(path)).children.erase(nameOf(path));
  }
};

// ---- the system under test ----

class ClosingSessions : public SessionValidator {
 public:
  Code checkSession(SessionId id, std::uint64_t) override { return closing.contains(id) ? Code::session_expired : Code::ok; }
  Code checkGlobalSession(SessionId id, std::uint64_t owner) override { return checkSession(id, owner); }
  void setSessionClosing(SessionId id) override { closing.insert(id); }
  std::set<SessionId> closing;
};

Request requestFor(const OpSpec& op, const std::string& path, SessionId session) {
  static constexpr OpCode types[] = {OpCode::create, OpCode::delete_node, OpCode::set_data, OpCode::check};
  Request request;
  request.sessionId = session;
  request.type = types[op.kind];
  request.path = path;
  request.mode = static_cast<CreateMode>(op.mode);
  request.data = op.data == 0 ? std::string() : "d" + std::to_string(op.data);
  request.version = op.version < 2 ? -1 : op.version - 2;
  return request;
}

// The codes of a prepared txn: what the client will be told, decided before anything is applied.
Outcome outcomeOfPrep(const Txn& txn) {
  Outcome outcome;
  if (txn.header.type == OpCode::error) outcome.code = std::get<ErrorTxn>(txn.body).error;
  if (txn.header.type == OpCode::create) outcome.path = std::get<CreateTxn>(txn.body).path;
  if (txn.header.type == OpCode::set_data) outcome.version = std::get<SetDataTxn>(txn.body).version;
  if (txn.header.type == OpCode::close_session) outcome.closed = std::get<CloseSessionTxn>(txn.body).paths_to_delete;
  return outcome;
}

void compareResult(const ProcessTxnResult& result, const Outcome& expected, OpCode type) {
  RC_ASSERT(result.error == expected.code);
  if (expected.code != Code::ok || result.type == OpCode::error) return;  // incl. ops of a failed multi
  if (type == OpCode::create) RC_ASSERT(result.path == expected.path);
  if (type == OpCode::set_data) RC_ASSERT(result.stat.version == expected.version);
}

void compareTree(const DataTree& tree, const Model& model) {
  RC_ASSERT(tree.nodes().size() == model.nodes.size());
  for (const auto& [path, node] : tree.nodes()) {
    auto expected = model.nodes.find(path);
    if (expected == model.nodes.end()) RC_FAIL("a node the model does not have: " + path);
    const std::string& where = path;  // clang 14 cannot capture a structured binding
    auto same = [&where](bool equal, const char* what) {
      if (!equal) RC_FAIL(std::string(what) + " differs at " + where);
    };
    same(node.data == expected->second.data, "data");
    same(node.stat.version == expected->second.version, "version");
    same(node.stat.cversion == expected->second.cversion, "cversion");
    same(node.stat.ephemeral_owner == expected->second.owner, "ephemeralOwner");
    same(std::set<std::string>(node.children.begin(), node.children.end()) == expected->second.children, "children");
    same(node.stat.num_children == static_cast<std::int32_t>(node.children.size()), "numChildren");
  }
}

struct Pending {
  Txn txn;
  Outcome expected;
  std::vector<OpCode> opTypes;  // multi: each op's type
};

class Run {
 public:
  explicit Run(const Profile& profile) : alphabet(profile.alphabet) {
    for (const std::string& path : profile.setup) {
      const OpSpec create{op_create, 0, static_cast<int>(CreateMode::persistent), 0, 0};
      prepare(requestFor(create, path, sessionOf(0)), model.write(create, path, sessionOf(0)), {});
    }
    applyAll();
  }

  void execute(const Command& command) {
    const SessionId session = sessionOf(command.slot);
    if (command.kind == command_op) {
      const std::string path = pick(command.op);
      RC_LOG() << format_zxid(zxid + 1) << " session " << session << " op " << command.op.kind << " " << path << "\n";
      prepare(requestFor(command.op, path, session), model.write(command.op, path, session), {});
    } else if (command.kind == command_multi) {
      Request request;
      request.sessionId = session;
      request.type = OpCode::multi;
      std::vector<std::string> paths;
      std::vector<OpCode> types;
      for (const OpSpec& op : command.ops) {
        paths.push_back(pick(op));
        request.ops.push_back(requestFor(op, paths.back(), session));
        types.push_back(request.ops.back().type);
      }
      RC_LOG() << format_zxid(zxid + 1) << " session " << session << " multi of " << paths.size() << "\n";
      prepare(request, model.multi(command.ops, paths, session), types);
    } else if (command.kind == command_close_session) {
      Request request;
      request.sessionId = session;
      request.type = OpCode::close_session;
      RC_LOG() << format_zxid(zxid + 1) << " closeSession " << session << "\n";
      prepare(request, model.closeSession(session), {});
    }
    if (command.applyAfter) applyAll();
  }

  // Commit and apply the batch, check everything, then give each closed slot a new session.
  void applyAll() {
    applyPending();
    for (int slot = 0; slot < 3; ++slot) {
      if (!model.closed.contains(sessionOf(slot))) continue;
      generation[slot]++;
      Request request;
      request.sessionId = sessionOf(slot);
      request.type = OpCode::create_session;
      request.timeoutMs = 4000;
      prepare(request, Outcome{}, {});
    }
    applyPending();
  }

 private:
  void applyPending() {
    for (const Pending& entry : pending) {
      const ProcessTxnResult result = tree.processTxn(entry.txn, nullptr);
      replica.processTxn(entry.txn, nullptr);
      prep.applied(entry.txn.header.zxid);
      if (entry.txn.header.type == OpCode::multi) {
        RC_ASSERT(result.error == entry.expected.code);
        RC_ASSERT(result.multi.size() == entry.expected.multi.size());
        for (std::size_t i = 0; i < result.multi.size(); ++i) {
          compareResult(result.multi[i], entry.expected.multi[i], entry.opTypes[i]);
        }
      } else {
        compareResult(result, entry.expected, entry.txn.header.type);
      }
    }
    pending.clear();
    model.staleChildren.clear();
    RC_ASSERT(prep.outstandingChanges() == 0u);
    RC_ASSERT(tree.getLastProcessedZxid() == (zxid == firstZxid ? 0 : zxid));
    tree.checkInvariants();
    compareTree(tree, model);
    RC_ASSERT(replica.digest() == tree.digest());
  }

  SessionId sessionOf(int slot) const { return 1 + slot + 3 * generation[slot]; }

  std::string pick(const OpSpec& op) const {
    const std::size_t index = static_cast<std::size_t>(op.path);
    if (index < alphabet.size()) return alphabet[index];
    std::vector<std::string> existing;
    for (const auto& [path, node] : model.nodes) {
      if (!systemPaths.contains(path)) existing.push_back(path);
    }
    if (existing.empty()) return alphabet[index % alphabet.size()];
    return existing[index % existing.size()];
  }

  void prepare(const Request& request, Outcome expected, std::vector<OpCode> opTypes) {
    const Txn txn = prep.pRequest2Txn(request, ++zxid, ++now);
    // What prep decided must already be what the model says.
    const Outcome prepared = outcomeOfPrep(txn);
    if (txn.header.type == OpCode::multi) {
      const MultiTxn& ops = std::get<MultiTxn>(txn.body);
      RC_ASSERT(ops.size() == expected.multi.size());
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const Code code = ops[i].type == OpCode::error ? std::get<ErrorTxn>(ops[i].body).error : Code::ok;
        // A failed multi keeps the real txns of the ops before the failure; they report OK later.
        RC_ASSERT(code == expected.multi[i].code);
      }
    } else {
      RC_ASSERT(prepared.code == expected.code);
      if (expected.code == Code::ok) {
        RC_ASSERT(prepared.path == expected.path);
        RC_ASSERT(prepared.version == expected.version);
        RC_ASSERT(prepared.closed == expected.closed);
      }
    }
    pending.push_back(Pending{txn, std::move(expected), std::move(opTypes)});
  }

  const std::vector<std::string>& alphabet;
  DataTree tree;
  DataTree replica;
  ClosingSessions sessions;
  PrepRequestProcessor prep{tree, sessions};
  Model model;
  static constexpr Zxid firstZxid = make_zxid(1, 0);
  Zxid zxid = firstZxid;
  std::int64_t now = 1'000'000;
  int generation[3] = {0, 0, 0};
  std::vector<Pending> pending;
};

void check(const Profile& profile) {
  const auto commands = *rc::gen::container<std::vector<Command>>(genCommand(profile));
  Run run(profile);
  for (const Command& command : commands) run.execute(command);
  run.applyAll();
}

RC_GTEST_PROP(DataTreeStateful, PrepAndApplyMatchTheReferenceModel, ()) { check(broad); }

RC_GTEST_PROP(DataTreeStateful, SessionClosesInFlightMatchTheReferenceModel, ()) { check(sessionsHeavy); }

}  // namespace
}  // namespace zk
