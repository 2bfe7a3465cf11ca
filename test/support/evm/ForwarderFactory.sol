// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SweepForwarder} from "./SweepForwarder.sol";

/// Deposit addresses as CREATE2 clones of one SweepForwarder: `forwarderOf(salt)` is known before anything is
/// deployed; `sweep` deploys the forwarders that are not yet deployed and flushes each one's token balance to the
/// hot wallet, all in one transaction. Only the owner may sweep, and funds only ever go to `hot`.
contract ForwarderFactory {
    address public immutable implementation;
    address public immutable owner;
    address public immutable hot;

    error NotOwner();

    event Swept(address indexed token, uint256 forwarders, uint256 amount);

    constructor(address hot_) {
        implementation = address(new SweepForwarder());
        owner = msg.sender;
        hot = hot_;
    }

    function forwarderOf(bytes32 salt) public view returns (address) {
        return Clones.predictDeterministicAddress(implementation, salt);
    }

    function sweep(IERC20 token, bytes32[] calldata salts) external returns (uint256 total) {
        if (msg.sender != owner) revert NotOwner();
        address impl = implementation;
        for (uint256 i = 0; i < salts.length; i++) {
            address forwarder = Clones.predictDeterministicAddress(impl, salts[i]);
            if (forwarder.code.length == 0) Clones.cloneDeterministic(impl, salts[i]);
            total += SweepForwarder(forwarder).flush(token, hot);
        }
        emit Swept(address(token), salts.length, total);
    }
}
