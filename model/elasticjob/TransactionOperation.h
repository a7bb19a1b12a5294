// org.apache.shardingsphere.elasticjob.reg.base.transaction.TransactionOperation (3.0.2+): the
// operations of one registry-centre transaction, turned into one ZooKeeper multi by
// ZookeeperRegistryCenter.executeInTransaction (CHECK_EXISTS -> check(-1), ADD -> create persistent,
// UPDATE -> setData(-1), DELETE -> delete(-1)).
#pragma once

#include <cstdint>
#include <string>

namespace elasticjob {

// (A declared constructor keeps it from being an aggregate: see the GCC 12 note in docs/engine.md.)
struct TransactionOperation {
  enum class Type : std::uint8_t { CHECK_EXISTS, ADD, UPDATE, DELETE };
  TransactionOperation(Type type, std::string key, std::string value) : type(type), key(std::move(key)), value(std::move(value)) {}
  Type type = Type::CHECK_EXISTS;
  std::string key;
  std::string value;

  static TransactionOperation opCheckExists(std::string key) { return {Type::CHECK_EXISTS, std::move(key), ""}; }
  static TransactionOperation opAdd(std::string key, std::string value) { return {Type::ADD, std::move(key), std::move(value)}; }
  static TransactionOperation opUpdate(std::string key, std::string value) { return {Type::UPDATE, std::move(key), std::move(value)}; }
  static TransactionOperation opDelete(std::string key) { return {Type::DELETE, std::move(key), ""}; }
};

}  // namespace elasticjob
