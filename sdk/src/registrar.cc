#include "strata/sdk/registrar.h"

#include "strata/sdk/error.h"

namespace strata::sdk {

void Registrar::add_algorithm(std::unique_ptr<Algorithm> algorithm) {
  algorithm->bind_host(raw_->services);
  const strata_algorithm_t table = algorithm->table();
  char msg[512] = {0};
  const std::string what = "registering algorithm '" + algorithm->name() + "'";
  keeper_.keep(std::shared_ptr<Algorithm>(std::move(algorithm)));
  check(raw_->add_algorithm(raw_->ctx, &table, {msg, sizeof msg}), what, msg);
}

uint32_t Registrar::add_device_type(std::unique_ptr<DeviceType> type) {
  type->bind_host(raw_->services);
  const strata_device_type_t table = type->table();
  char msg[512] = {0};
  const std::string what = "registering device type '" + type->name() + "'";
  keeper_.keep(std::shared_ptr<DeviceType>(std::move(type)));
  uint32_t id = 0;
  check(raw_->add_device_type(raw_->ctx, &table, &id, {msg, sizeof msg}), what,
        msg);
  return id;
}

void Registrar::add_resolver(std::unique_ptr<Resolver> resolver) {
  resolver->bind_host(raw_->services);
  const strata_resolver_t table = resolver->table();
  char msg[512] = {0};
  const std::string what = "registering resolver '" + resolver->name() + "'";
  keeper_.keep(std::shared_ptr<Resolver>(std::move(resolver)));
  check(raw_->add_resolver(raw_->ctx, &table, {msg, sizeof msg}), what, msg);
}

void Registrar::add_store_type(std::unique_ptr<StoreType> store_type) {
  store_type->bind_host(raw_->services);
  const strata_store_type_t table = store_type->table();
  char msg[512] = {0};
  const std::string what = "registering store type '" + store_type->name() + "'";
  keeper_.keep(std::shared_ptr<StoreType>(std::move(store_type)));
  check(raw_->add_store_type(raw_->ctx, &table, {msg, sizeof msg}), what, msg);
}

}  // namespace strata::sdk
