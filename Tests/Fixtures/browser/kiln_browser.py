#!/usr/bin/env python3
##===----------------------------------------------------------------------===##
##
## This source file is part of the Kiln open source project
##
## Copyright (c) 2026 the Kiln project authors
## Licensed under Apache License v2.0
##
## See LICENSE for license information
##
## SPDX-License-Identifier: Apache-2.0
##
##===----------------------------------------------------------------------===##
"""What the browser scripts of BrowserTests share: Chromium as they start it, signing in, and the phone's width."""

import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def chromium(width, height, console=False):
    """Headless Chromium in a window of that size; with console, it keeps every console message."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=%d,%d" % (width, height)):
        options.add_argument(argument)
    if console:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path="/usr/bin/chromedriver"))


def sign_in(driver, base, token):
    """Signs in at /login with the token; returns where the browser went."""
    driver.get(base + "/login")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "form.signin button").click()
    # click() returns once the click is dispatched, not once the form's answer has loaded:
    # wait for the browser to leave /login (or give up after 15 s and report where it is).
    deadline = time.time() + 15
    while time.time() < deadline and driver.current_url.endswith("/login"):
        time.sleep(0.1)
    return driver.current_url


def sideways(driver, base, paths):
    """How far each page reaches past a 400 px window, a phone's (0: it does not scroll sideways)."""
    driver.set_window_size(400, 800)
    wide = {}
    for path in paths:
        driver.get(base + path)
        wide[path] = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    return wide
