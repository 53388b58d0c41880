// The Registry on its own, with tables built here: what it refuses
// (INVALID_ARGUMENT for bad names, ops, scopes and missing functions;
// ALREADY_EXISTS for ids taken), what remove_plugin takes away, and that
// device type ids are never handed out twice.
#include <cstddef>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plugin/registry.h"

namespace strata {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// Stand-ins for table functions the registry checks for but never calls.
// Generic, so they convert to whatever signature a table field has.
constexpr auto kReturnsOk = [](auto...) { return strata_status_t{STRATA_OK}; };
constexpr auto kDoesNothing = [](auto...) {};

strata_algorithm_t algorithm(const char* name, strata_op_t op = STRATA_ALL_REDUCE) {
  strata_algorithm_t t{};
  t.struct_size = sizeof t;
  t.name = name;
  t.op = op;
  t.scope = STRATA_SCOPE_LOCAL;
  t.create = kReturnsOk;
  t.post = kReturnsOk;
  t.test = kReturnsOk;
  t.abort = kDoesNothing;
  t.destroy = kDoesNothing;
  return t;
}

strata_device_type_t device_type(const char* name) {
  strata_device_type_t t{};
  t.struct_size = sizeof t;
  t.name = name;
  t.device_count = kReturnsOk;
  t.get_props = kReturnsOk;
  t.allocate = kReturnsOk;
  t.free = kDoesNothing;
  t.copy_async = kReturnsOk;
  t.reduce_async = kReturnsOk;
  t.event_create = kReturnsOk;
  t.event_record = kReturnsOk;
  t.stream_wait_event = kReturnsOk;
  t.event_query = kReturnsOk;
  t.event_destroy = kDoesNothing;
  t.synchronize = kReturnsOk;
  return t;
}

strata_resolver_t resolver(const char* name) {
  strata_resolver_t t{};
  t.struct_size = sizeof t;
  t.name = name;
  t.resolve = kReturnsOk;
  return t;
}

// The message of an add that must fail with INVALID_ARGUMENT.
std::string invalid(const Status& s) {
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  return s.message();
}

TEST(RegistryNames, ValidNamesAreLowercaseDigitsUnderscoreUpTo63) {
  EXPECT_TRUE(is_valid_name("ring"));
  EXPECT_TRUE(is_valid_name("all_reduce_2"));
  EXPECT_TRUE(is_valid_name(std::string(63, 'a')));
  EXPECT_FALSE(is_valid_name(""));
  EXPECT_FALSE(is_valid_name(std::string(64, 'a')));
  EXPECT_FALSE(is_valid_name("Ring"));
  EXPECT_FALSE(is_valid_name("ring-2"));
  EXPECT_FALSE(is_valid_name("a/b"));
  EXPECT_FALSE(is_valid_name("ring "));
}

TEST(RegistryAdd, BadAlgorithmNamesAreInvalidArgument) {
  Registry registry;
  const std::string too_long(64, 'x');
  for (const char* name : {"Ring", "", too_long.c_str(), "has space", "a/b"}) {
    EXPECT_EQ(invalid(registry.add_algorithm("p", algorithm(name))),
              "algorithm has an invalid name '" + std::string(name) +
                  "'; names are 1-63 characters of [a-z0-9_]");
  }
  EXPECT_THAT(invalid(registry.add_algorithm("p", algorithm(nullptr))), HasSubstr("'(null)'"));
  EXPECT_THAT(registry.algorithms(), IsEmpty());
}

TEST(RegistryAdd, UnknownOpIsInvalidArgument) {
  Registry registry;
  EXPECT_EQ(invalid(registry.add_algorithm("p", algorithm("x", STRATA_OP_COUNT))),
            "algorithm 'x' has unknown op " + std::to_string(STRATA_OP_COUNT));
  EXPECT_EQ(invalid(registry.add_algorithm("p", algorithm("x", -1))),
            "algorithm 'x' has unknown op -1");
}

TEST(RegistryAdd, BadScopeBitsAreInvalidArgument) {
  Registry registry;
  for (uint32_t scope : {0u, 1u << 3, STRATA_SCOPE_LOCAL | (1u << 31)}) {
    strata_algorithm_t t = algorithm("x");
    t.scope = scope;
    EXPECT_EQ(invalid(registry.add_algorithm("p", t)),
              "algorithm 'x' has invalid scope bits " + std::to_string(scope));
  }
  strata_algorithm_t all = algorithm("all");
  all.scope = STRATA_SCOPE_LOCAL | STRATA_SCOPE_CROSS_PROCESS |
              STRATA_SCOPE_MULTI_DEVICE_PROCESSES;
  EXPECT_TRUE(registry.add_algorithm("p", all).ok());
}

TEST(RegistryAdd, EachMissingRequiredFunctionIsNamed) {
  Registry registry;
  const auto without = [](auto clear) {
    strata_algorithm_t t = algorithm("x");
    clear(t);
    return t;
  };
  using T = strata_algorithm_t;
  EXPECT_THAT(invalid(registry.add_algorithm("p", without([](T& t) { t.create = nullptr; }))),
              HasSubstr("missing required function 'create'"));
  EXPECT_THAT(invalid(registry.add_algorithm("p", without([](T& t) { t.post = nullptr; }))),
              HasSubstr("missing required function 'post'"));
  EXPECT_THAT(invalid(registry.add_algorithm("p", without([](T& t) { t.test = nullptr; }))),
              HasSubstr("missing required function 'test'"));
  EXPECT_THAT(invalid(registry.add_algorithm("p", without([](T& t) { t.abort = nullptr; }))),
              HasSubstr("missing required function 'abort'"));
  EXPECT_THAT(invalid(registry.add_algorithm("p", without([](T& t) { t.destroy = nullptr; }))),
              HasSubstr("missing required function 'destroy'"));
  strata_device_type_t d = device_type("dev");
  d.synchronize = nullptr;
  EXPECT_EQ(invalid(registry.add_device_type("p", d).status()),
            "device type 'dev' is missing required function 'synchronize'");
}

TEST(RegistryAdd, SmallStructSizeIsInvalidArgumentForEveryTable) {
  Registry registry;
  strata_algorithm_t a = algorithm("x");
  // One byte short of ABI 1.0's table, which ends at destroy.
  a.struct_size = offsetof(strata_algorithm_t, run) - 1;
  EXPECT_THAT(invalid(registry.add_algorithm("p", a)),
              HasSubstr("algorithm table has struct_size " + std::to_string(a.struct_size)));
  // Exactly 1.0's size is a 1.0 table: accepted, and run() reads as NULL.
  a.struct_size = offsetof(strata_algorithm_t, run);
  a.name = "v1_0";
  a.run = [](void*, void*, const strata_call_t*, int64_t, void**,
             strata_message_t) -> strata_status_t {
    return STRATA_INTERNAL;  // past struct_size: must never be copied
  };
  ASSERT_TRUE(registry.add_algorithm("p", a).ok());
  EXPECT_EQ(registry.find_algorithm("p/all_reduce/v1_0")->table.run, nullptr);
  strata_device_type_t d = device_type("dev");
  d.struct_size = 0;
  EXPECT_THAT(invalid(registry.add_device_type("p", d).status()),
              HasSubstr("device type table has struct_size 0"));
  strata_resolver_t r = resolver("res");
  r.struct_size = 8;
  EXPECT_THAT(invalid(registry.add_resolver("p", r)),
              HasSubstr("resolver table has struct_size 8"));
}

TEST(RegistryAdd, IdsAreUniquePerPluginOpAndName) {
  Registry registry;
  ASSERT_TRUE(registry.add_algorithm("p", algorithm("ring")).ok());
  const Status again = registry.add_algorithm("p", algorithm("ring"));
  EXPECT_EQ(again.code(), Code::kAlreadyExists) << again;
  EXPECT_EQ(again.message(), "algorithm id 'p/all_reduce/ring' is already registered");
  EXPECT_TRUE(registry.add_algorithm("p", algorithm("ring", STRATA_BROADCAST)).ok());
  EXPECT_TRUE(registry.add_algorithm("q", algorithm("ring")).ok());
  EXPECT_EQ(registry.add_device_type("p", device_type("dev")).status().code(), Code::kOk);
  EXPECT_EQ(registry.add_device_type("q", device_type("dev")).status().code(),
            Code::kAlreadyExists);
  EXPECT_THAT(registry.registered_by("p"),
              ElementsAre("p/all_reduce/ring", "p/broadcast/ring", "device:dev"));
}

TEST(RegistryRemove, RemovePluginTakesEverythingItAddedAndNothingElse) {
  Registry registry;
  ASSERT_TRUE(registry.add_algorithm("p", algorithm("ring")).ok());
  ASSERT_TRUE(registry.add_algorithm("p", algorithm("tree", STRATA_BROADCAST)).ok());
  ASSERT_TRUE(registry.add_device_type("p", device_type("p_dev")).ok());
  ASSERT_TRUE(registry.add_resolver("p", resolver("p_res")).ok());
  ASSERT_TRUE(registry.add_algorithm("q", algorithm("ring")).ok());
  ASSERT_TRUE(registry.add_device_type("q", device_type("q_dev")).ok());
  EXPECT_THAT(registry.registered_by("p"),
              UnorderedElementsAre("p/all_reduce/ring", "p/broadcast/tree", "device:p_dev",
                                   "resolver:p_res"));

  registry.remove_plugin("p");
  EXPECT_THAT(registry.registered_by("p"), IsEmpty());
  EXPECT_EQ(registry.find_algorithm("p/all_reduce/ring"), nullptr);
  EXPECT_EQ(registry.find_device_type("p_dev"), nullptr);
  EXPECT_EQ(registry.find_resolver("p_res"), nullptr);
  EXPECT_THAT(registry.registered_by("q"), ElementsAre("q/all_reduce/ring", "device:q_dev"));
  // The names are free again.
  EXPECT_TRUE(registry.add_algorithm("p", algorithm("ring")).ok());
  EXPECT_TRUE(registry.add_resolver("r", resolver("p_res")).ok());
}

TEST(RegistryRemove, DeviceTypeIdsAreNeverReused) {
  Registry registry;
  auto first = registry.add_device_type("p", device_type("dev"));
  ASSERT_TRUE(first.ok()) << first.status();
  registry.remove_plugin("p");
  EXPECT_EQ(registry.device_type(*first), nullptr);
  // A stale strata_device_t must never name the new type by accident.
  auto second = registry.add_device_type("p", device_type("dev"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(*second, *first);
  auto third = registry.add_device_type("q", device_type("other"));
  ASSERT_TRUE(third.ok());
  EXPECT_NE(*third, *first);
  EXPECT_NE(*third, *second);
  EXPECT_EQ(registry.device_type(*second)->name, "dev");
  EXPECT_EQ(registry.device_type(*first), nullptr);
}

TEST(RegistryRemove, RemovingAnUnknownPluginIsHarmless) {
  Registry registry;
  ASSERT_TRUE(registry.add_algorithm("p", algorithm("ring")).ok());
  registry.remove_plugin("nobody");
  registry.remove_plugin("");
  EXPECT_THAT(registry.registered_by("p"), ElementsAre("p/all_reduce/ring"));
}

}  // namespace
}  // namespace strata
